/** A training run as a rescue study reads it (`harness-s rescue-study`, `reproduce --rescue-study`). */
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import {
  ConfigError,
  formatZodError,
  policySnapshotSteps,
  readTrainConfig,
  TrainConfig,
  trainFiles,
} from '@harness-s/core';
import { z } from 'zod';
import type { RecordedSplit } from './task-splits.js';

/** What the study needs of a run's config.json. */
const StudiedRun = z.object({
  env: z.string(),
  config: TrainConfig,
  h0: z.string().default('h0'),
  pool: z.array(z.string()).default([]),
  trainer: z.string(),
  trainTasks: z.array(z.string()),
  split: z.unknown().optional(),
  splits: z.unknown().optional(),
  /** The flags the run was started with; `pool` the pool folder's absolute path. */
  flags: z.object({ pool: z.string().optional() }).optional(),
});

/** First, middle and last of the steps a run has snapshots of. */
export function defaultStudySteps(available: readonly number[]): number[] {
  if (available.length === 0) return [];
  const middle = available[Math.floor((available.length - 1) / 2)] as number;
  return [...new Set([available[0] as number, middle, available.at(-1) as number])];
}

/** A training run as the study reads it: its folder, its config.json, the steps it has snapshots of. */
export interface StudiedRunInfo {
  dir: string;
  env: string;
  h0: string;
  pool: string[];
  /** The pool folder the run was started with, when its config.json records it. */
  poolDir?: string;
  k: number;
  seed: number;
  /** The run's rescue width (its config, else K). */
  variants: number;
  trainTasks: string[];
  /** What the run's config says of the `--split` it was cut from (`recordedSplit` reads it). */
  recordedSplit: RecordedSplit;
  snapshots: number[];
}

/**
 * The pool of a reproduction's run (`ROOT/train/ENV/VARIANT/METHOD/seed-N`, whose config.json
 * records no flags): `ROOT/pools/ENV`, when it is there.
 */
function reproductionPool(dir: string, env: string): { poolDir?: string } {
  const root = resolve(dir, '..', '..', '..', '..', '..');
  const pool = join(root, 'pools', env);
  return relative(root, dir).split(sep)[0] === 'train' && existsSync(join(pool, 'index.json')) ? { poolDir: pool } : {};
}

/** Reads a training run for a study, refusing one the study cannot replay, with the reason. */
export async function readStudiedRun(run: string): Promise<StudiedRunInfo> {
  const dir = resolve(run);
  const configPath = join(dir, trainFiles.config);
  if (!existsSync(configPath))
    throw new ConfigError(`${dir}: no training run here (no config.json)`, { code: 'bad-flag' });
  const recorded = await readTrainConfig(dir);
  const command = (recorded as { command?: unknown } | null)?.command;
  if (command !== undefined && command !== 'train')
    throw new ConfigError(
      `${dir} holds a run of 'harness-s ${String(command)}', not a training run: a rescue study replays a training run's policy`,
      { code: 'bad-flag' },
    );
  const parsed = StudiedRun.safeParse(recorded);
  if (!parsed.success)
    throw new ConfigError(`${configPath}: ${formatZodError(parsed.error)}`, { code: 'bad-run-config' });
  const config = parsed.data;
  if (config.trainer !== 'sim-grpo')
    throw new ConfigError(
      `${configPath}: trainer '${config.trainer}'; a rescue study replays the simulated policy only`,
      {
        code: 'bad-run-config',
      },
    );
  const snapshots = await policySnapshotSteps(dir);
  if (snapshots.length === 0)
    throw new ConfigError(
      `${dir} keeps no policy snapshots (checkpoints/policy-step-N.json); train it again to study it`,
      { code: 'no-snapshot' },
    );
  return {
    dir,
    env: config.env,
    h0: config.h0,
    pool: config.pool,
    ...(config.flags?.pool ? { poolDir: config.flags.pool } : reproductionPool(dir, config.env)),
    k: config.config.k,
    seed: config.config.seed,
    variants: config.config.rescue?.variants ?? config.config.k,
    trainTasks: config.trainTasks,
    recordedSplit: { split: config.split, splits: config.splits },
    snapshots,
  };
}
