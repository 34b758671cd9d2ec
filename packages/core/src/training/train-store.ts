import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { parseWith, readJsonl } from '../jsonl.js';
import { lockRunFolder } from '../run-lock.js';
import { readJson, writeFileAtomic, writeJsonAtomic } from '../run-store.js';
import type { Trajectory } from '../trajectory.js';
import { StepMetrics } from './step-metrics.js';

export const trainFiles = {
  config: 'config.json',
  trajectories: 'trajectories.jsonl',
  metrics: 'metrics.jsonl',
  checkpoint: join('checkpoints', 'latest.json'),
  summary: 'summary.json',
} as const;

/**
 * Where a run keeps the attempts of its evaluation under H0 after step N (N = 0: before training),
 * one trajectory per line, as `eval` writes them.
 */
export const evalTrajectoriesFile = (step: number): string => join('evals', `step-${step}.jsonl`);

/** Where a run keeps the trainer's state after step N (N = 0: before training). */
export const policySnapshotFile = (step: number): string => join('checkpoints', `policy-step-${step}.json`);

/** Running totals over the whole run, carried in checkpoints. */
export const TrainTotals = z.object({
  groups: z.number().int(),
  /** Groups with a scored attempt; absent in checkpoints written before it was counted (then: groups). */
  retainedGroups: z.number().int().optional(),
  effectiveGroups: z.number().int(),
  effectiveTokens: z.number().int(),
  retainedTokens: z.number().int(),
  /** All-failed base groups (for every method, rescued or not). */
  rescueTriggered: z.number().int(),
  /** Groups that were rescued (their rescue group replaced the base group). */
  rescued: z.number().int(),
  rescueSucceeded: z.number().int(),
  retainedAttempts: z.number().int(),
  retainedReward: z.number(),
  infraErrors: z.number().int(),
  /**
   * Wall time of the run up to this checkpoint, over every session of a resumed run; absent in
   * checkpoints written before it was kept (their earlier sessions' time is not known).
   */
  elapsedMs: z.number().nonnegative().optional(),
});
export type TrainTotals = z.infer<typeof TrainTotals>;

export const emptyTotals = (): TrainTotals => ({
  groups: 0,
  retainedGroups: 0,
  effectiveGroups: 0,
  effectiveTokens: 0,
  retainedTokens: 0,
  rescueTriggered: 0,
  rescued: 0,
  rescueSucceeded: 0,
  retainedAttempts: 0,
  retainedReward: 0,
  infraErrors: 0,
});

export const EvalPoint = z.object({
  step: z.number().int().nonnegative(),
  passAtK: z.number(),
  avgAtK: z.number(),
  k: z.number().int(),
});
export type EvalPoint = z.infer<typeof EvalPoint>;

/**
 * A checkpoint: the last completed step, the trainer's parameters, the router's state and the
 * running totals. Randomness is derived from (seed, step), so the step is the whole random state.
 */
export const Checkpoint = z.object({
  schemaVersion: z.literal(1),
  step: z.number().int().nonnegative(),
  trainer: z.unknown(),
  router: z.unknown(),
  totals: TrainTotals,
  evals: z.array(EvalPoint),
  savedAt: z.string(),
  /** The environment trained on (absent in checkpoints written before it was recorded). */
  env: z.string().optional(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/**
 * The trainer's state after one step, kept for every step (the latest checkpoint is replaced):
 * what the policy was at each stage of training, for studies that replay a stage (for example
 * `harness-s rescue-study`). Small for the simulated policy; for a model, whatever its trainer keeps.
 */
export const PolicySnapshot = z.object({
  schemaVersion: z.literal(1),
  step: z.number().int().nonnegative(),
  trainer: z.unknown(),
  savedAt: z.string(),
  /**
   * The environment the policy was trained on, so that a snapshot copied out of its run folder is
   * not taken for another environment's (absent in snapshots written before it was recorded).
   */
  env: z.string().optional(),
});
export type PolicySnapshot = z.infer<typeof PolicySnapshot>;

/**
 * Keeps only the lines of a JSONL file whose step is at most `step` (atomic rewrite; a line cut
 * short at the end, as a kill leaves it, goes too). What a resumed run drops of its logs.
 */
export async function truncateAfterStep(path: string, step: number, stepOf: (value: unknown) => number): Promise<void> {
  await (await linesUpToStep(path, step, stepOf)).write();
}

/**
 * The lines of a JSONL file up to `step` (a torn last line left out): their steps, and `write()`,
 * which rewrites the file with only them. Nothing is written until it is called.
 */
async function linesUpToStep(
  path: string,
  step: number,
  stepOf: (value: unknown) => number,
  /** What a kept line is rewritten as (default: as it is). */
  edit: (value: unknown) => unknown = (value) => value,
): Promise<{ steps: number[]; write(): Promise<void> }> {
  if (!existsSync(path)) return { steps: [], write: async () => {} };
  const kept = (await readJsonl(path, { tolerateTornTail: true })).filter(({ value }) => stepOf(value) <= step);
  return {
    steps: kept.map(({ value }) => stepOf(value)),
    write: () =>
      writeFileAtomic(path, kept.length ? `${kept.map(({ value }) => JSON.stringify(edit(value))).join('\n')}\n` : ''),
  };
}

/**
 * Refuses to continue a run whose logs lack what its checkpoint covers: every step up to the
 * checkpoint has its one metrics line and its trajectories, since a step is appended (and synced)
 * before its checkpoint is written. A file damaged or edited by hand would otherwise lose a step's
 * record without a word and the continued run would end with other totals than its logs.
 */
export function checkLoggedSteps(
  dir: string,
  checkpointStep: number,
  metricSteps: number[],
  trajectorySteps: number[],
): void {
  const problems: string[] = [];
  const expected = Array.from({ length: checkpointStep }, (_, index) => index + 1);
  const counts = new Map<number, number>();
  for (const step of metricSteps) counts.set(step, (counts.get(step) ?? 0) + 1);
  const missing = expected.filter((step) => !counts.has(step));
  const doubled = [...counts].filter(([, count]) => count > 1).map(([step]) => step);
  if (missing.length) problems.push(`${trainFiles.metrics} has no line for step ${steps(missing)}`);
  if (doubled.length) problems.push(`${trainFiles.metrics} has several lines for step ${steps(doubled)}`);
  const traced = new Set(trajectorySteps);
  const untraced = expected.filter((step) => !traced.has(step));
  if (untraced.length) problems.push(`${trainFiles.trajectories} has no attempt of step ${steps(untraced)}`);
  if (problems.length === 0) return;
  throw new ConfigError(
    `resume: ${dir} is damaged: its checkpoint covers steps 1-${checkpointStep}, but ${problems.join(', and ')}; ` +
      'its record of those steps is lost, so it cannot be continued as the same run (train it again in another folder)',
    { code: 'damaged-run' },
  );
}

const steps = (list: number[]): string =>
  list.length > 6 ? `${list.slice(0, 6).join(', ')} and ${list.length - 6} more` : list.join(', ');

/**
 * A training run folder. Each step's trajectories and metrics are appended in one go after the
 * step, then the checkpoint is replaced atomically (and again with its evaluation, when one is due); a run killed at any moment resumes from the
 * last checkpoint, and whatever was written after it is dropped, so no group is lost or doubled.
 */
export class TrainStore {
  private constructor(
    readonly dir: string,
    private readonly lock: { release(): Promise<void> },
  ) {}

  /** Opens a run folder: fresh (refusing one that already holds a run) or for resuming. */
  static async open(
    dir: string,
    config: unknown,
    resume: boolean,
    /**
     * On resume from a checkpoint, given the recorded config.json and the step trained: throws when
     * the run given is not the one recorded.
     */
    sameRun: (recorded: unknown, trained: number) => void = () => {},
  ): Promise<{ store: TrainStore; checkpoint: Checkpoint | null }> {
    // Taken before anything is read or cut back: a second writer of this run is refused first.
    await mkdir(dir, { recursive: true });
    const lock = await lockRunFolder(dir);
    try {
      return await TrainStore.openLocked(dir, config, resume, lock, sameRun);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  private static async openLocked(
    dir: string,
    config: unknown,
    resume: boolean,
    lock: { release(): Promise<void> },
    sameRun: (recorded: unknown, trained: number) => void,
  ): Promise<{ store: TrainStore; checkpoint: Checkpoint | null }> {
    const store = new TrainStore(dir, lock);
    const checkpointPath = join(dir, trainFiles.checkpoint);
    if (resume) {
      if (!existsSync(checkpointPath)) {
        if (!existsSync(join(dir, trainFiles.config))) {
          throw new ConfigError(
            `resume: no training run in ${dir} (no config.json) to continue; without resume, a run starts there`,
            { code: 'no-run' },
          );
        }
      } else {
        const checkpoint = parseWith(Checkpoint, await readJson(checkpointPath), checkpointPath);
        const configPath = join(dir, trainFiles.config);
        const recorded = existsSync(configPath) ? ((await readJson(configPath)) as Record<string, unknown>) : {};
        sameRun(recorded, checkpoint.step);
        const trajectories = await linesUpToStep(
          join(dir, trainFiles.trajectories),
          checkpoint.step,
          (value) => (value as { training?: { step?: number } }).training?.step ?? 0,
        );
        // An evaluation the checkpoint does not hold (a kill before its commitEval) is not the run's yet.
        const evaluated = new Set(checkpoint.evals.map((point) => point.step));
        const metrics = await linesUpToStep(
          join(dir, trainFiles.metrics),
          checkpoint.step,
          (value) => (value as { step?: number }).step ?? 0,
          (value) => {
            const { eval: point, ...line } = value as { step?: number; eval?: unknown };
            return point === undefined || evaluated.has(line.step ?? 0) ? value : line;
          },
        );
        checkLoggedSteps(dir, checkpoint.step, metrics.steps, trajectories.steps);
        // What a continuation may change (how far it goes, how it runs) is recorded as it now is;
        // the policy it started from stays as recorded (a served model's address may change).
        await writeJsonAtomic(configPath, {
          ...(config as Record<string, unknown>),
          ...('policy' in recorded ? { policy: recorded['policy'] } : {}),
        });
        await trajectories.write();
        await metrics.write();
        for (const step of await evalStepsIn(dir))
          if (!evaluated.has(step)) await rm(join(dir, evalTrajectoriesFile(step)), { force: true });
        // The run goes on: it has not ended until it writes its summary again.
        await rm(join(dir, trainFiles.summary), { force: true });
        return { store, checkpoint };
      }
    } else if (existsSync(join(dir, trainFiles.trajectories)) || existsSync(checkpointPath)) {
      throw new ConfigError(
        `${dir} already holds a training run; resume it (train --resume ${dir}, or resume: true in the library) or train in another folder`,
        {
          code: 'run-exists',
        },
      );
    }
    await mkdir(join(dir, 'checkpoints'), { recursive: true });
    await writeJsonAtomic(join(dir, trainFiles.config), config);
    for (const file of [trainFiles.trajectories, trainFiles.metrics]) await writeFile(join(dir, file), '');
    return { store, checkpoint: null };
  }

  private async append(file: string, lines: readonly unknown[]): Promise<void> {
    if (lines.length === 0) return;
    const handle = await open(join(this.dir, file), 'a');
    try {
      await handle.write(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Writes one finished step: its trajectories and metrics, then the checkpoint that covers them. */
  async commitStep(trajectories: readonly Trajectory[], metrics: StepMetrics, checkpoint: Checkpoint): Promise<void> {
    await this.append(trainFiles.trajectories, trajectories);
    await this.append(trainFiles.metrics, [metrics]);
    await this.writeCheckpoint(checkpoint);
  }

  /**
   * Writes the evaluation after a kept step: into that step's metrics line, then the checkpoint
   * that holds it. A run stopped in between evaluates again on resume (with the same seed, so to
   * the same point) and writes both again.
   */
  async commitEval(point: EvalPoint, checkpoint: Checkpoint): Promise<void> {
    const path = join(this.dir, trainFiles.metrics);
    const lines = (await readJsonl(path, { tolerateTornTail: true })).map(({ value }) =>
      (value as { step?: number }).step === point.step
        ? { ...(value as object), eval: { passAtK: point.passAtK, avgAtK: point.avgAtK, k: point.k } }
        : value,
    );
    await writeFileAtomic(path, lines.length ? `${lines.map((line) => JSON.stringify(line)).join('\n')}\n` : '');
    await writeJsonAtomic(join(this.dir, trainFiles.checkpoint), checkpoint);
  }

  /** The policy snapshot of the checkpoint's step, then the checkpoint itself. */
  async writeCheckpoint(checkpoint: Checkpoint): Promise<void> {
    const { step, trainer, savedAt, env } = checkpoint;
    const snapshot: PolicySnapshot = { schemaVersion: 1, step, trainer, savedAt, ...(env ? { env } : {}) };
    await writeJsonAtomic(join(this.dir, policySnapshotFile(step)), snapshot);
    await writeJsonAtomic(join(this.dir, trainFiles.checkpoint), checkpoint);
  }

  /** Writes the run's summary, its last write. */
  async writeSummary(summary: unknown): Promise<void> {
    await writeJsonAtomic(join(this.dir, trainFiles.summary), summary);
  }

  /** Frees the folder for another writer; the run ends here, finished or not. */
  close(): Promise<void> {
    return this.lock.release();
  }
}

/**
 * The steps a run folder holds policy snapshots for, in order (up to its last checkpoint: a step
 * written after it, by a run killed before the checkpoint, is not counted).
 */
export async function policySnapshotSteps(dir: string): Promise<number[]> {
  const checkpointPath = join(dir, trainFiles.checkpoint);
  if (!existsSync(checkpointPath)) return [];
  const last = parseWith(Checkpoint, await readJson(checkpointPath), checkpointPath).step;
  return (await snapshotStepsIn(dir)).filter((step) => step <= last);
}

/** The steps of the files in `folder` named by `pattern` (its first group the step), in order. */
async function stepFilesIn(folder: string, pattern: RegExp): Promise<number[]> {
  if (!existsSync(folder)) return [];
  return (await readdir(folder))
    .flatMap((name) => {
      const match = pattern.exec(name);
      return match ? [Number(match[1])] : [];
    })
    .sort((a, b) => a - b);
}

/** The steps a run folder holds evaluation attempts of (`evals/step-N.jsonl`), in order. */
export const evalStepsIn = (dir: string): Promise<number[]> => stepFilesIn(join(dir, 'evals'), /^step-(\d+)\.jsonl$/);

/**
 * Every step a folder holds a policy snapshot file of (`checkpoints/policy-step-N.json`), in order,
 * whatever its checkpoint says: a served model's folder has snapshots and no checkpoint.
 */
export const snapshotStepsIn = (dir: string): Promise<number[]> =>
  stepFilesIn(join(dir, 'checkpoints'), /^policy-step-(\d+)\.json$/);

/** Reads the policy snapshot of a step; a clear error when the run has none for it. */
export async function readPolicySnapshot(dir: string, step: number): Promise<PolicySnapshot> {
  const path = join(dir, policySnapshotFile(step));
  if (!existsSync(path)) {
    const steps = await policySnapshotSteps(dir);
    throw new ConfigError(
      `${dir} has no policy snapshot of step ${step}` +
        (steps.length ? ` (it has steps ${steps.join(', ')})` : ' (a run written before snapshots were kept has none)'),
      { code: 'no-snapshot' },
    );
  }
  return parseWith(PolicySnapshot, await readJson(path), path);
}

/** Reads and validates a run's per-step metrics. */
export async function readStepMetrics(dir: string): Promise<StepMetrics[]> {
  const path = join(dir, trainFiles.metrics);
  return (await readJsonl(path, { tolerateTornTail: true })).map(({ line, value }) =>
    parseWith(StepMetrics, value, `${path}:${line}`),
  );
}

export async function readTrainConfig(dir: string): Promise<unknown> {
  return readJson(join(dir, trainFiles.config));
}
