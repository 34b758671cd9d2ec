import { z } from 'zod';
import { ConfigError } from './errors.js';
import { formatZodError } from './jsonl.js';
import { deriveSeed } from './random.js';

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

/** Shares of a split for training, validation and test; they must sum to 1. */
export const SplitFractions = z
  .strictObject({
    train: z.number().min(0).max(1),
    validation: z.number().min(0).max(1),
    test: z.number().min(0).max(1),
  })
  .refine((fractions) => Math.abs(fractions.train + fractions.validation + fractions.test - 1) < 1e-9, {
    message: 'train + validation + test must be 1',
  });
export type SplitFractions = z.infer<typeof SplitFractions>;

/**
 * `splitTasks`'s fractions when its caller gives none: half to train, a quarter each to validate and
 * test. The command line cuts an environment's single split 60/20/20 instead (`singleSplitFractions`).
 */
export const defaultSplitFractions: SplitFractions = { train: 0.5, validation: 0.25, test: 0.25 };

/** Tasks divided into training, validation and test subsets. */
export interface TaskSplits<T extends Task = Task> {
  train: T[];
  validation: T[];
  test: T[];
}

/**
 * Divides tasks deterministically into train / validation / test by a hash of (seed, task id):
 * tasks are ordered by the hash and cut at the rounded fractions, so the subsets depend only on the
 * ids and the seed (not on file order), and sizes are exact. Each subset keeps the input order.
 */
export function splitTasks<T extends Task>(
  tasks: readonly T[],
  fractions: SplitFractions = defaultSplitFractions,
  seed = 0,
): TaskSplits<T> {
  const parsed = SplitFractions.safeParse(fractions);
  if (!parsed.success) {
    throw new ConfigError(`split fractions: ${formatZodError(parsed.error)}`, { code: 'bad-split-fractions' });
  }
  const ranked = tasks
    .map((task, index) => ({ task, index, key: deriveSeed(seed, 'split', task.id) }))
    .sort((a, b) => a.key - b.key || a.task.id.localeCompare(b.task.id));
  const trainCount = Math.round(tasks.length * fractions.train);
  const validationCount = Math.min(tasks.length - trainCount, Math.round(tasks.length * fractions.validation));
  const inOrder = (items: typeof ranked): T[] => items.sort((a, b) => a.index - b.index).map((item) => item.task);
  return {
    train: inOrder(ranked.slice(0, trainCount)),
    validation: inOrder(ranked.slice(trainCount, trainCount + validationCount)),
    test: inOrder(ranked.slice(trainCount + validationCount)),
  };
}
