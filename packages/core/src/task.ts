import { z } from 'zod';

/** The environment-independent part of a task. Environments extend it with their own payload. */
export const Task = z.object({
  /** Unique within its environment, stable across runs (e.g. `dev-17`). */
  id: z.string().min(1),
  /** The environment that owns the task (e.g. `dbbench`). */
  env: z.string().min(1),
  /** Which split the task came from (`dev`, `train`, a file's name...). */
  split: z.string(),
  /** The instruction the harness shows the policy. */
  instruction: z.string(),
  /** A coarse category (DBBench question type, AppWorld app...), used for per-category metrics. */
  category: z.string().optional(),
  /** Free-form features for routing and analysis. */
  tags: z.array(z.string()).default([]),
  /** 1 (easy) to 3 (hard) where the environment knows it. */
  difficulty: z.number().int().min(1).max(3).optional(),
});
export type Task = z.infer<typeof Task>;

/** A task record that could not be loaded, and why. The run goes on without it. */
export const UnloadableTask = z.object({ id: z.string(), reason: z.string() });
export type UnloadableTask = z.infer<typeof UnloadableTask>;

/** The result of loading a split: the usable tasks and the ones that could not be loaded. */
export interface TaskSet<T extends Task = Task> {
  tasks: T[];
  unloadable: UnloadableTask[];
}
