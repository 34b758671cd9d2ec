import { defaultMaxInfraRetries, runAttempt } from './agent-loop.js';
import type { AttemptRunner } from './attempt-runner.js';
import { mapConcurrent } from './concurrency.js';
import type { Environment } from './environment.js';
import { ConfigError } from './errors.js';
import { type Harness, isHarness } from './harness.js';
import type { Policy } from './policy.js';
import { deriveSeed } from './random.js';
import type { RunStore } from './run-store.js';
import { type EvalSummary, summarizeEvaluation } from './summary.js';
import type { Task, TaskSet } from './task.js';
import { isScored, type Trajectory, trajectoryId } from './trajectory.js';

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
  /**
   * Per-task harness choice (Rank-1 routing): when set, each task runs under the harness it
   * returns, and `harness` only names the evaluation in the summary.
   */
  harnessFor?: (task: T) => Harness;
  /** The summary's `harness` label (default: the harness's id). */
  harnessLabel?: string;
  policy: Policy;
  /** The k of Pass@k and Avg@k; also the attempts per task unless `attempts` says more. */
  k: number;
  /**
   * Attempts per task, n >= k (default k): Pass@k is then the unbiased estimate from all n, with
   * less variance than from k alone.
   */
  attempts?: number;
  /** Run seed; every attempt's seed is derived from it, so results do not depend on concurrency. */
  seed: number;
  /**
   * Derive attempt seeds from the run seed, task and attempt only, not the harness id, so every
   * harness evaluated with the same run seed meets the same seeds: paired comparisons of harnesses.
   */
  pairedSeeds?: boolean;
  /** Attempts in flight at once. */
  concurrency: number;
  runId: string;
  /** Where trajectories go as they finish. */
  store?: RunStore;
  /**
   * Trajectories already recorded by an earlier, interrupted run: those attempts are not rerun,
   * except the ones recorded without a score (every try ended in an infrastructure error).
   */
  resumeFrom?: readonly Trajectory[];
  /**
   * With `resumeFrom`: the wall time the run took before (its earlier summary's `durationMs`),
   * added to this session's, so the summary keeps the whole run's time. 0 when unknown.
   */
  earlierDurationMs?: number;
  maxInfraRetries?: number;
  /**
   * Runs the attempts instead of this process (a job queue's workers, as `train --redis` uses),
   * all at once: their results reach `store` and `onProgress` together, when the last is back.
   */
  runner?: AttemptRunner;
  /** With `runner`: what its attempt ids start with, to keep them unique within its run (`eval-3:`). */
  attemptIdPrefix?: string;
  onProgress?: (progress: EvaluationProgress) => void;
  signal?: AbortSignal;
}

export interface EvaluationResult {
  summary: EvalSummary;
  trajectories: Trajectory[];
}

/** Refuses options a caller from JavaScript can get wrong, naming the option, before any attempt. */
function checkEvaluationOptions<T extends Task>(options: EvaluationOptions<T>): void {
  const bad = (what: string) => new ConfigError(`evaluate: ${what}`, { code: 'bad-evaluation' });
  const integer = (name: 'k' | 'concurrency', value: unknown, minimum: number) => {
    if (!Number.isInteger(value) || (value as number) < minimum)
      throw bad(`${name} must be an integer >= ${minimum}, got ${String(value)}`);
  };
  if (!Array.isArray(options.taskSet?.tasks))
    throw bad("taskSet must be a TaskSet, { tasks, unloadable }, as an environment's loadTasks returns");
  if (!isHarness(options.harness)) throw bad('harness must be a Harness: createHarness(spec) of a harness spec');
  if (typeof options.policy?.startEpisode !== 'function')
    throw bad('policy must be a Policy: { id, version, startEpisode(context) }, e.g. new SimulatedPolicy()');
  if (typeof options.environment?.open !== 'function')
    throw bad("environment must be an Environment, as an environment package's create function returns");
  integer('k', options.k, 1);
  if (!Number.isInteger(options.seed)) throw bad(`seed must be an integer, got ${String(options.seed)}`);
  integer('concurrency', options.concurrency, 1);
  if (typeof options.runId !== 'string' || options.runId === '') throw bad('runId must be a non-empty string');
  if (typeof options.split !== 'string') throw bad('split must be a string, the name the summary gives the tasks');
}

/** Runs k (or `attempts`) attempts of every task under one harness and summarises them. */
export async function evaluate<T extends Task>(options: EvaluationOptions<T>): Promise<EvaluationResult> {
  checkEvaluationOptions(options);
  const start = performance.now();
  const { environment, harness, policy, k } = options;
  const attempts = options.attempts ?? k;
  if (!Number.isInteger(attempts) || attempts < k) {
    throw new ConfigError(`attempts per task must be an integer of at least k = ${k}, got ${attempts}`, {
      code: 'bad-attempts',
    });
  }
  // An attempt recorded without a score (every try an infrastructure error) is run again.
  const done = new Map<string, Trajectory>();
  for (const trajectory of options.resumeFrom ?? []) if (isScored(trajectory)) done.set(trajectory.id, trajectory);

  const harnessOf = (task: T): Harness => options.harnessFor?.(task) ?? harness;
  const pending: Array<{ task: T; attempt: number }> = [];
  for (const task of options.taskSet.tasks) {
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (!done.has(trajectoryId(task.id, harnessOf(task).spec.id, attempt))) pending.push({ task, attempt });
    }
  }

  const total = options.taskSet.tasks.length * attempts;
  const trajectories: Trajectory[] = [...done.values()];
  let successes = trajectories.filter((trajectory) => trajectory.evaluation?.success).length;
  let infraErrors = trajectories.reduce((sum, trajectory) => sum + trajectory.infraErrors.length, 0);

  const seedOf = (task: T, attempt: number) =>
    deriveSeed(options.seed, task.id, options.pairedSeeds ? 'paired' : harnessOf(task).spec.id, attempt);
  const record = async (trajectory: Trajectory) => {
    trajectories.push(trajectory);
    if (trajectory.evaluation?.success) successes += 1;
    infraErrors += trajectory.infraErrors.length;
    const progress = { completed: trajectories.length, total, successes, infraErrors, last: trajectory };
    await options.store?.appendTrajectory(trajectory);
    options.onProgress?.(progress);
  };
  const { runner } = options;
  if (runner) {
    const ran = await runner.run({
      runId: options.runId,
      environment,
      policy,
      requests: pending.map(({ task, attempt }) => ({
        attemptId: `${options.attemptIdPrefix ?? ''}${trajectoryId(task.id, harnessOf(task).spec.id, attempt)}`,
        task,
        harness: harnessOf(task),
        attempt,
        seed: seedOf(task, attempt),
      })),
      maxInfraRetries: options.maxInfraRetries ?? defaultMaxInfraRetries,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    for (const trajectory of ran) await record(trajectory);
  } else {
    await mapConcurrent(pending, options.concurrency, async ({ task, attempt }) =>
      record(
        await runAttempt(
          {
            environment,
            task,
            harness: harnessOf(task),
            policy,
            runId: options.runId,
            attempt,
            seed: seedOf(task, attempt),
            ...(options.signal ? { signal: options.signal } : {}),
          },
          options.maxInfraRetries === undefined ? {} : { maxInfraRetries: options.maxInfraRetries },
        ),
      ),
    );
  }

  const coreSummary = summarizeEvaluation(
    {
      runId: options.runId,
      env: environment.id,
      split: options.split,
      policy: policy.id,
      policyVersion: policy.version,
      harness: options.harnessLabel ?? harness.spec.id,
      k,
      ...(attempts > k ? { attempts } : {}),
      seed: options.seed,
      tasks: options.taskSet.tasks,
      unloadable: options.taskSet.unloadable,
      durationMs: (options.earlierDurationMs ?? 0) + performance.now() - start,
    },
    trajectories,
  );
  // Environment additions first, so the core keys always win.
  const summary: EvalSummary = {
    ...(environment.extendSummary?.(trajectories, options.taskSet.tasks) ?? {}),
    ...coreSummary,
  };
  await options.store?.writeSummary(summary);
  return { summary, trajectories };
}
