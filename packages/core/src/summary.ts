import { z } from 'zod';
import { Usage } from './message.js';
import { meanAvgAtK, meanPassAtK, type TaskOutcome } from './metrics.js';
import type { Task } from './task.js';
import { UnloadableTask } from './task.js';
import { isScored, StopReason, type Trajectory } from './trajectory.js';

/** One task's attempt counts in an evaluation. */
export const TaskResult = z.object({
  id: z.string(),
  category: z.string().optional(),
  /** Scored attempts (infrastructure failures excluded). */
  attempts: z.number().int().nonnegative(),
  successes: z.number().int().nonnegative(),
});
export type TaskResult = z.infer<typeof TaskResult>;

const Rates = z.object({ tasks: z.number().int(), passAtK: z.number(), avgAtK: z.number() });

/**
 * `summary.json` of an evaluation. Scripts may rely on every key here, for every environment.
 */
export const EvalSummary = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  env: z.string(),
  split: z.string(),
  policy: z.string(),
  policyVersion: z.string(),
  harness: z.string(),
  k: z.number().int().positive(),
  /** Attempts per task when more than k (Pass@k estimated from them all); absent: k. */
  attempts: z.number().int().positive().optional(),
  seed: z.number().int(),
  /** Tasks attempted. */
  tasks: z.number().int().nonnegative(),
  /** Tasks solved in at least one attempt. */
  solved: z.number().int().nonnegative(),
  /** Ids of the tasks never solved, of those with a scored attempt. */
  unsolved: z.array(z.string()),
  /**
   * Ids of the tasks with no scored attempt: every try of every attempt ended in an infrastructure
   * error. They count in neither Pass@k and Avg@k nor `solved` and `unsolved`.
   */
  unscoredTasks: z.array(z.string()).default([]),
  /** Mean unbiased Pass@k over tasks, in [0, 1]. */
  passAtK: z.number().min(0).max(1),
  /** Mean success over attempts, averaged over tasks, in [0, 1]. */
  avgAtK: z.number().min(0).max(1),
  /** Records that could not be loaded, with the reason. */
  unloadable: z.array(UnloadableTask),
  /** Infrastructure errors met (each retried; see `unscoredAttempts` for attempts lost to them). */
  infraErrors: z.number().int().nonnegative(),
  /** Attempts that failed on every try and so were not scored. */
  unscoredAttempts: z.number().int().nonnegative(),
  perTask: z.array(TaskResult),
  perCategory: z.record(z.string(), Rates),
  stopReasons: z.partialRecord(StopReason, z.number().int()),
  usage: Usage,
  durationMs: z.number(),
});
export type EvalSummary = z.infer<typeof EvalSummary>;

export interface SummaryContext {
  runId: string;
  env: string;
  split: string;
  policy: string;
  policyVersion: string;
  harness: string;
  k: number;
  /** Attempts per task, when more than k. */
  attempts?: number;
  seed: number;
  tasks: readonly Task[];
  unloadable: readonly UnloadableTask[];
  durationMs: number;
}

/** Computes an evaluation's summary from its trajectories. */
export function summarizeEvaluation(context: SummaryContext, trajectories: readonly Trajectory[]): EvalSummary {
  const byTask = new Map<string, TaskOutcome & { category?: string }>();
  for (const task of context.tasks) {
    byTask.set(task.id, {
      id: task.id,
      attempts: 0,
      successes: 0,
      ...(task.category ? { category: task.category } : {}),
    });
  }
  const stopReasons: Partial<Record<StopReason, number>> = {};
  let infraErrors = 0;
  let unscoredAttempts = 0;
  const usage = { promptTokens: 0, completionTokens: 0 };
  for (const trajectory of trajectories) {
    stopReasons[trajectory.stopReason] = (stopReasons[trajectory.stopReason] ?? 0) + 1;
    infraErrors += trajectory.infraErrors.length;
    usage.promptTokens += trajectory.usage.promptTokens;
    usage.completionTokens += trajectory.usage.completionTokens;
    const outcome = byTask.get(trajectory.taskId);
    if (!outcome) continue;
    if (!isScored(trajectory)) {
      unscoredAttempts += 1;
      continue;
    }
    outcome.attempts += 1;
    if (trajectory.evaluation.success) outcome.successes += 1;
  }
  const perTask = [...byTask.values()];
  const perCategory: Record<string, z.infer<typeof Rates>> = {};
  for (const category of new Set(perTask.map((task) => task.category ?? 'all'))) {
    const members = perTask.filter((task) => (task.category ?? 'all') === category);
    perCategory[category] = {
      tasks: members.length,
      passAtK: meanPassAtK(members, context.k),
      avgAtK: meanAvgAtK(members),
    };
  }
  const solved = perTask.filter((task) => task.successes > 0);
  return {
    schemaVersion: 1,
    runId: context.runId,
    env: context.env,
    split: context.split,
    policy: context.policy,
    policyVersion: context.policyVersion,
    harness: context.harness,
    k: context.k,
    ...(context.attempts && context.attempts > context.k ? { attempts: context.attempts } : {}),
    seed: context.seed,
    tasks: perTask.length,
    solved: solved.length,
    unsolved: perTask.filter((task) => task.attempts > 0 && task.successes === 0).map((task) => task.id),
    unscoredTasks: perTask.filter((task) => task.attempts === 0).map((task) => task.id),
    passAtK: meanPassAtK(perTask, context.k),
    avgAtK: meanAvgAtK(perTask),
    unloadable: [...context.unloadable],
    infraErrors,
    unscoredAttempts,
    perTask,
    perCategory,
    stopReasons,
    usage,
    durationMs: context.durationMs,
  };
}

/**
 * Whether an evaluation has a rate to show: some task (of `category`, or any) has a scored
 * attempt. Where every try ended in an infrastructure error, Pass@k and Avg@k are no measurement.
 */
export function hasScoredTask(summary: Pick<EvalSummary, 'perTask'>, category?: string): boolean {
  return summary.perTask.some(
    (task) => task.attempts > 0 && (category === undefined || (task.category ?? 'all') === category),
  );
}
