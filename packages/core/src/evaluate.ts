import { runAttempt } from './agent-loop.js';
import { mapConcurrent } from './concurrency.js';
import type { Environment } from './environment.js';
import type { Harness } from './harness.js';
import type { Policy } from './policy.js';
import { deriveSeed } from './random.js';
import type { RunStore } from './run-store.js';
import { type EvalSummary, summarizeEvaluation } from './summary.js';
import type { Task, TaskSet } from './task.js';
import { type Trajectory, trajectoryId } from './trajectory.js';

/** Progress of an evaluation, reported after every finished attempt. */
export interface EvaluationProgress {
  completed: number;
  total: number;
  successes: number;
  infraErrors: number;
  last: Trajectory;
}

export interface EvaluationOptions<T extends Task> {
  environment: Environment<T>;
  taskSet: TaskSet<T>;
  split: string;
  harness: Harness;
  policy: Policy;
  /** Attempts per task. */
  k: number;
  /** Run seed; every attempt's seed is derived from it, so results do not depend on concurrency. */
  seed: number;
  /** Attempts in flight at once. */
  concurrency: number;
  runId: string;
  /** Where trajectories go as they finish. */
  store?: RunStore;
  /** Trajectories already recorded by an earlier, interrupted run: those attempts are not rerun. */
  resumeFrom?: readonly Trajectory[];
  maxInfraRetries?: number;
  onProgress?: (progress: EvaluationProgress) => void;
  signal?: AbortSignal;
}

export interface EvaluationResult {
  summary: EvalSummary;
  trajectories: Trajectory[];
}

/** Runs k attempts of every task under one harness and summarises them. */
export async function evaluate<T extends Task>(options: EvaluationOptions<T>): Promise<EvaluationResult> {
  const start = performance.now();
  const { environment, harness, policy, k } = options;
  const done = new Map<string, Trajectory>();
  for (const trajectory of options.resumeFrom ?? []) done.set(trajectory.id, trajectory);

  const pending: Array<{ task: T; attempt: number }> = [];
  for (const task of options.taskSet.tasks) {
    for (let attempt = 0; attempt < k; attempt += 1) {
      if (!done.has(trajectoryId(task.id, harness.spec.id, attempt))) pending.push({ task, attempt });
    }
  }

  const total = options.taskSet.tasks.length * k;
  const trajectories: Trajectory[] = [...done.values()];
  let successes = trajectories.filter((trajectory) => trajectory.evaluation?.success).length;
  let infraErrors = trajectories.reduce((sum, trajectory) => sum + trajectory.infraErrors.length, 0);

  await mapConcurrent(pending, options.concurrency, async ({ task, attempt }) => {
    const trajectory = await runAttempt(
      {
        environment,
        task,
        harness,
        policy,
        runId: options.runId,
        attempt,
        seed: deriveSeed(options.seed, task.id, harness.spec.id, attempt),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      options.maxInfraRetries === undefined ? {} : { maxInfraRetries: options.maxInfraRetries },
    );
    trajectories.push(trajectory);
    if (trajectory.evaluation?.success) successes += 1;
    infraErrors += trajectory.infraErrors.length;
    const progress = { completed: trajectories.length, total, successes, infraErrors, last: trajectory };
    await options.store?.appendTrajectory(trajectory);
    options.onProgress?.(progress);
  });

  const summary = summarizeEvaluation(
    {
      runId: options.runId,
      env: environment.id,
      split: options.split,
      policy: policy.id,
      policyVersion: policy.version,
      harness: harness.spec.id,
      k,
      seed: options.seed,
      tasks: options.taskSet.tasks,
      unloadable: options.taskSet.unloadable,
      durationMs: performance.now() - start,
    },
    trajectories,
  );
  await options.store?.writeSummary(summary);
  return { summary, trajectories };
}
