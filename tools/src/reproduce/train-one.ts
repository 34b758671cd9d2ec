import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  Checkpoint,
  type Environment,
  evaluate,
  type Harness,
  namingFile,
  type Policy,
  parseWith,
  readJson,
  type Task,
  TrainSummary,
  train,
  truncateAfterStep,
} from '@harness-s/core';
import { SimulatedGrpoTrainer, SimulatedPolicy, type SimulatedPolicyConfig } from '@harness-s/policy';
import { AdaptiveRouter, ProfileSet, ProfileStatsRanker, SimilarTaskRanker } from '@harness-s/router';
import { z } from 'zod';
import { builtInDiagnosis, withFailureRanker } from '../diagnosis.js';
import type { TaskSplits } from '../task-splits.js';
import type { ResultRecord } from './results.js';
import { breadthAblationShape, type EnvironmentBudget, type ReproduceMethod } from './settings.js';

export interface TrainOneOptions {
  root: string;
  environment: Environment;
  splits: TaskSplits<Task>;
  h0: Harness;
  pool: readonly Harness[];
  budget: EnvironmentBudget;
  method: ReproduceMethod;
  variant: ResultRecord['variant'];
  seed: number;
  concurrency: number;
  initialProfiles: ProfileSet;
  /** The simulated policy's settings over its defaults (default: the defaults). */
  sim?: Partial<SimulatedPolicyConfig>;
  /** The adaptive router remembers what each rescue gave (see `AdaptiveRouterOptions.rescueMemory`). */
  rescueMemory?: boolean;
  /** The similar-failure ranker's weight in the adaptive router's vote; absent: not used. */
  failureRanker?: number;
  /** Told after every training step, with what is training (`dbbench harness-s seed 2, fixed-profiles`). */
  onStep?: (label: string) => void;
  /** Stops the training at its next attempt (its checkpoints kept). */
  signal?: AbortSignal;
}

/**
 * Before a run resumes, forgets the anchors its router logged after the last checkpoint: the
 * resumed steps anchor again and log them anew, so `router.jsonl` holds each anchor once. An
 * anchoring the checkpoint holds (made for the next step, then checkpointed) is not made again: its
 * line stays, and is written from the checkpoint when the kill came before it was.
 * Returns the steps the checkpoint holds.
 */
export async function dropAnchorsAfterCheckpoint(dir: string, validation: readonly Task[]): Promise<number> {
  const checkpointPath = join(dir, 'checkpoints', 'latest.json');
  const saved = existsSync(checkpointPath)
    ? parseWith(Checkpoint, await readJson(checkpointPath), checkpointPath)
    : undefined;
  const done = saved?.step ?? 0;
  const router = CheckpointedAnchor.safeParse(saved?.router);
  const held = router.success && router.data.anchoredAt === done + 1 ? router.data.profiles : null;
  // An anchor made at the start of step `done + 1` or later is made again when that step reruns,
  // unless the checkpoint holds it.
  await dropAnchorsFrom(dir, held ? done + 1 : done);
  if (held && !(await loggedAnchorSteps(dir)).includes(held.anchoredAtStep))
    await logRouterAnchor(dir, held, validation);
  return done;
}

/** What `dropAnchorsAfterCheckpoint` reads of an adaptive router's checkpointed state. */
const CheckpointedAnchor = z.object({ anchoredAt: z.number().int().optional(), profiles: ProfileSet.nullable() });

/** The `anchoredAtStep` of every anchor a run's `router.jsonl` holds. */
async function loggedAnchorSteps(dir: string): Promise<number[]> {
  const path = join(dir, 'router.jsonl');
  if (!existsSync(path)) return [];
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { anchoredAtStep: number }).anchoredAtStep);
}

/** Forgets the anchors of a run's `router.jsonl` made on the policy of `step` or later. */
export const dropAnchorsFrom = (dir: string, step: number): Promise<void> =>
  truncateAfterStep(
    join(dir, 'router.jsonl'),
    step - 1,
    (value) => (value as { anchoredAtStep: number }).anchoredAtStep,
  );

/**
 * Logs an anchor's top choices on the validation tasks to the run's `router.jsonl`, for the report's
 * chart of the router over training: the first profiles (anchored before step 1), every
 * re-anchoring, and the profiles anchored on the trained policy (`anchoredAtStep` = the run's steps).
 */
export async function logRouterAnchor(dir: string, profiles: ProfileSet, validation: readonly Task[]): Promise<void> {
  const shares = await topShares(profiles, validation);
  const line = {
    step: profiles.anchoredAtStep + 1,
    anchoredAtStep: profiles.anchoredAtStep,
    policyVersion: profiles.policyVersion,
    h0TopShare: shares[profiles.h0.harnessId] ?? 0,
    topShares: shares,
  };
  await mkdir(dir, { recursive: true });
  await appendFile(join(dir, 'router.jsonl'), `${JSON.stringify(line)}\n`);
}

/** Share of tasks for which each harness is the Rank-1 choice under these profiles. */
export async function topShares(profiles: ProfileSet, tasks: readonly Task[]): Promise<Record<string, number>> {
  const router = new AdaptiveRouter({ profiles, mode: 'fixed' });
  const counts: Record<string, number> = {};
  for (const task of tasks) {
    const top = await router.topChoice(task);
    counts[top] = (counts[top] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([id, count]) => [id, count / tasks.length]));
}

/** Share of tasks whose Rank-1 choice under these profiles is H0 (0 for no tasks). */
export async function h0TopShare(profiles: ProfileSet, tasks: readonly Task[]): Promise<number> {
  return (await topShares(profiles, tasks))[profiles.h0.harnessId] ?? 0;
}

/**
 * Pass@k and Avg@k of a policy under one harness (or per-task routing) on the test tasks. Attempt
 * seeds do not depend on the harness (paired), so evaluations with the same seed compare harnesses
 * on the same draws: Rank-1 routing against H0, one family against another.
 */
export async function evaluateOn(options: {
  environment: Environment;
  tasks: readonly Task[];
  harness: Harness;
  policy: Policy;
  budget: EnvironmentBudget;
  seed: number;
  concurrency: number;
  harnessFor?: ((task: Task) => Harness) | undefined;
  signal?: AbortSignal | undefined;
}) {
  const { environment, tasks, harness, harnessFor, policy, budget, seed, concurrency, signal } = options;
  const { summary } = await evaluate({
    environment,
    taskSet: { tasks: [...tasks], unloadable: [] },
    split: 'test',
    harness,
    ...(harnessFor ? { harnessFor, harnessLabel: 'rank1' } : {}),
    policy,
    k: budget.evalK,
    seed,
    pairedSeeds: true,
    concurrency,
    runId: `reproduce-eval-${harness.spec.id}`,
    ...(signal ? { signal } : {}),
  });
  return { passAtK: summary.passAtK, avgAtK: summary.avgAtK, k: budget.evalK };
}

/**
 * One training run of a reproduction, in its own folder. A finished run (its summary.json exists)
 * is not trained again: its policy is restored from the last checkpoint, so an interrupted
 * reproduction continues where it stopped.
 */
export async function trainOne(options: TrainOneOptions): Promise<{ record: ResultRecord; policy: Policy }> {
  const { budget, method, variant, seed } = options;
  const dir = join(options.root, 'train', options.environment.id, variant, method, `seed-${seed}`);
  const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy(options.sim ?? {}));
  const anchors: Array<Promise<unknown>> = [];
  const logAnchor = (profiles: ProfileSet) => logRouterAnchor(dir, profiles, options.splits.validation);
  const router =
    method === 'harness-s'
      ? new AdaptiveRouter({
          profiles: options.initialProfiles,
          mode: variant === 'fixed-profiles' ? 'fixed' : 'adaptive',
          ...(options.rescueMemory ? { rescueMemory: true } : {}),
          ...(options.failureRanker
            ? {
                diagnose: builtInDiagnosis(options.environment.id, options.h0.spec),
                rankers: withFailureRanker([new ProfileStatsRanker(), new SimilarTaskRanker()], options.failureRanker),
              }
            : {}),
          reanchorEvery: budget.reanchorEvery,
          profileK: budget.profileK,
          onAnchor: (profiles) => {
            anchors.push(logAnchor(profiles));
          },
        })
      : undefined;

  const label = `${options.environment.id} ${method} seed ${seed}${variant === 'main' ? '' : `, ${variant}`}`;
  let summary: TrainSummary;
  const summaryPath = join(dir, 'summary.json');
  if (existsSync(summaryPath)) {
    summary = parseWith(TrainSummary, await readJson(summaryPath), summaryPath);
    const checkpointPath = join(dir, 'checkpoints', 'latest.json');
    const saved = parseWith(Checkpoint, await readJson(checkpointPath), checkpointPath);
    namingFile(checkpointPath, () => trainer.restore(saved.trainer));
    // Its steps count as done, so a continued reproduction's progress starts where it stopped.
    for (let step = 0; step < summary.steps; step += 1) options.onStep?.(`${label}, trained before`);
  } else {
    const done = await dropAnchorsAfterCheckpoint(dir, options.splits.validation);
    // The first anchor (the profiles it starts from), logged before any step.
    if (router && done === 0) await logAnchor(options.initialProfiles);
    for (let step = 0; step < done; step += 1) options.onStep?.(`${label}, trained before`);
    summary = await train({
      ...(options.signal ? { signal: options.signal } : {}),
      config: {
        method,
        steps: budget.steps,
        batchSize: budget.batchSize,
        k: budget.k,
        seed,
        evalK: budget.evalK,
        evalEvery: budget.evalEvery,
        concurrency: options.concurrency,
        ...(variant === 'rescue-4x2' ? { rescue: breadthAblationShape(budget.k) } : {}),
      },
      environment: options.environment,
      tasks: options.splits,
      h0: options.h0,
      pool: options.pool,
      ...(router ? { router } : {}),
      trainer,
      dir,
      // A run stopped before its first checkpoint has only its config: it starts over in place.
      resume: existsSync(join(dir, 'checkpoints', 'latest.json')) || existsSync(join(dir, 'config.json')),
      record: { variant },
      onProgress: (progress) => {
        // A catch-up 'done' is of a step counted above, as the checkpoint's.
        if (progress.phase === 'done' && !progress.catchUp) options.onStep?.(label);
      },
    });
    await Promise.all(anchors);
  }
  return { record: { ...summary, variant, runDir: relative(options.root, dir) }, policy: trainer.policy };
}
