import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  deriveSeed,
  formatZodError,
  policySnapshotSteps,
  readPolicySnapshot,
  readTrainConfig,
  TrainConfig,
  trainFiles,
  writeJsonAtomic,
} from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { buildProfiles, type ProfileSet, type RescueStudyStage, readProfiles, studyRescue } from '@harness-s/router';
import { z } from 'zod';
import { createEnvironment, type EnvironmentOptions, environmentOptions } from '../environments.js';
import { percent, renderTable } from '../format.js';
import { loadPoolHarnesses } from '../pool.js';
import { createProgress, type Progress } from '../progress.js';
import { loadTaskSplits } from '../task-splits.js';

export interface RescueStudyFlags extends EnvironmentOptions {
  /** The training run whose policy snapshots are studied. */
  run: string;
  pool: string;
  /** The first anchor's profiles (default: anchored on the run's step-0 policy). */
  profiles?: string;
  steps?: number[];
  reps: number;
  /** Rescue width m (default: the run's rescue variants). */
  variants?: number;
  carryOver: number;
  profileK: number;
  /** Seed of the study's draws (default: the run's seed, so studies of different runs draw apart). */
  seed?: number;
  concurrency: number;
  split?: string;
  out?: string;
  quiet?: boolean;
}

/** What the study needs of a run's config.json. */
const StudiedRun = z.object({
  env: z.string(),
  config: TrainConfig,
  h0: z.string().default('h0'),
  pool: z.array(z.string()).default([]),
  trainer: z.string(),
  trainTasks: z.array(z.string()),
});

export interface RescueStudyResult {
  schemaVersion: 1;
  run: string;
  env: string;
  k: number;
  variants: number;
  reps: number;
  seed: number;
  carryOver: number;
  stages: RescueStudyStage[];
}

/** First, middle and last of the steps a run has snapshots of. */
export function defaultStudySteps(available: readonly number[]): number[] {
  if (available.length === 0) return [];
  const middle = available[Math.floor((available.length - 1) / 2)] as number;
  return [...new Set([available[0] as number, middle, available.at(-1) as number])];
}

/**
 * `harness-s rescue-study RUN_DIR`: how each way of rescuing (adaptive or fixed profiles, m x 1 or
 * m/2 x 2, random variants, fresh H0 attempts) does on the all-failed H0 groups of the policy at
 * chosen steps of a training run, all on the same groups and attempts, against the pool's ceiling.
 */
export async function runRescueStudy(flags: RescueStudyFlags): Promise<RescueStudyResult> {
  const runDir = resolve(flags.run);
  const configPath = join(runDir, trainFiles.config);
  if (!existsSync(configPath))
    throw new ConfigError(`${runDir}: no training run here (no config.json)`, { code: 'bad-flag' });
  const parsedRun = StudiedRun.safeParse(await readTrainConfig(runDir));
  if (!parsedRun.success)
    throw new ConfigError(`${configPath}: ${formatZodError(parsedRun.error)}`, { code: 'bad-run-config' });
  const run = parsedRun.data;
  if (run.trainer !== 'sim-grpo')
    throw new ConfigError(`${configPath}: trainer '${run.trainer}'; a rescue study replays the simulated policy only`, {
      code: 'bad-run-config',
    });
  const available = await policySnapshotSteps(runDir);
  if (available.length === 0)
    throw new ConfigError(
      `${runDir} keeps no policy snapshots (checkpoints/policy-step-N.json); train it again to study it`,
      { code: 'no-snapshot' },
    );
  const steps = flags.steps ?? defaultStudySteps(available);
  const missing = steps.filter((step) => !available.includes(step));
  if (missing.length)
    throw new ConfigError(
      `--steps: ${runDir} has no snapshot of step ${missing.join(', ')} (it has ${available.join(', ')})`,
      {
        code: 'bad-flag',
      },
    );
  const k = run.config.k;
  const seed = flags.seed ?? run.config.seed;
  const variants = flags.variants ?? run.config.rescue?.variants ?? k;

  const environment = createEnvironment(run.env, environmentOptions(flags));
  try {
    const h0 = await resolveHarness(run.env, run.h0);
    const pool = await loadPoolHarnesses(flags.pool, run.env);
    const poolIds = new Set(pool.map((harness) => harness.spec.id));
    const absent = run.pool.filter((id) => !poolIds.has(id));
    if (absent.length)
      throw new ConfigError(
        `--pool ${flags.pool}: the run's pool had ${absent.length} variant(s) this one lacks (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', ...' : ''})`,
        { code: 'bad-flag' },
      );
    const splits = await loadTaskSplits(environment, flags.split);
    const trained = new Set(run.trainTasks);
    if (splits.train.length !== trained.size || splits.train.some((task) => !trained.has(task.id)))
      throw new ConfigError(
        `the run trained on other tasks than these ${splits.train.length} (${splits.source}); pass the --split it was trained with`,
        { code: 'bad-flag' },
      );
    const log = (line: string) => {
      if (!flags.quiet) process.stderr.write(`${line}\n`);
    };
    const policyAt = async (step: number) => {
      const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy());
      trainer.restore((await readPolicySnapshot(runDir, step)).trainer);
      return trainer.policy;
    };
    let initialProfiles: ProfileSet;
    if (flags.profiles) initialProfiles = await readProfiles(flags.profiles);
    else {
      log(`Anchoring the first profiles on the run's step-0 policy (${pool.length + 1} harnesses)`);
      initialProfiles = await buildProfiles({
        environment,
        tasks: splits.validation,
        h0,
        pool,
        policy: await policyAt(0),
        k: flags.profileK,
        seed: deriveSeed(seed, 'anchor', 0),
        concurrency: flags.concurrency,
      });
    }
    log(
      `Rescue study of ${runDir}: steps ${steps.join(', ')}, ${splits.train.length} tasks x ${flags.reps} H0 groups of ${k}, ` +
        `rescue ${variants} variants (pool ${pool.length})`,
    );
    const stages: RescueStudyStage[] = [];
    for (const step of steps) {
      let progress: Progress | undefined;
      let phase = '';
      const stage = await studyRescue({
        environment,
        tasks: splits.train,
        validation: splits.validation,
        h0,
        pool,
        policy: await policyAt(step),
        step,
        initialProfiles,
        k,
        variants,
        reps: flags.reps,
        seed,
        carryOver: flags.carryOver,
        profileK: flags.profileK,
        concurrency: flags.concurrency,
        onProgress: (next, done, total) => {
          if (flags.quiet) return;
          if (next !== phase) {
            progress?.stop();
            phase = next;
            const label = { anchor: 're-anchoring', groups: 'H0 groups', rescue: 'rescue attempts' }[next];
            progress = createProgress(`step ${step}: ${label}`, total);
          }
          progress?.update(done, `${done}/${total}`);
        },
      });
      progress?.stop();
      stages.push(stage);
      log(
        `step ${step}: ${stage.allFailed} of ${stage.groups} H0 groups failed every attempt` +
          (stage.infraErrors ? `; ${stage.infraErrors} groups left out for infrastructure errors` : '') +
          (stage.rescueInfraErrors ? `; ${stage.rescueInfraErrors} rescue attempts hit infrastructure errors` : ''),
      );
    }
    const result: RescueStudyResult = {
      schemaVersion: 1,
      run: runDir,
      env: run.env,
      k,
      variants,
      reps: flags.reps,
      seed,
      carryOver: flags.carryOver,
      stages,
    };
    const out = resolve(flags.out ?? join(runDir, 'rescue-study.json'));
    await writeJsonAtomic(out, result);
    process.stdout.write(`${formatRescueStudy(result)}\nWritten: ${out}\n`);
    return result;
  } finally {
    await environment.close?.();
  }
}

/** The study as a table: one row per step, each arm's rescue rate, and the paired comparisons. */
export function formatRescueStudy(result: RescueStudyResult): string {
  const m = result.variants;
  const half = Math.max(1, Math.floor(m / 2));
  const rate = (value: number | null) => (value === null ? '-' : percent(value));
  const versus = (first: number, second: number) => `+${first} / -${second}`;
  const rows = result.stages.map((stage) => [
    String(stage.step),
    `${stage.allFailed}/${stage.groups}`,
    rate(stage.arms.adaptive.rate),
    rate(stage.arms.fixed.rate),
    rate(stage.arms['adaptive-half'].rate),
    rate(stage.arms.random.rate),
    rate(stage.arms['h0-resample'].rate),
    rate(stage.arms.ceiling.rate),
    `${versus(stage.adaptiveVsFixed.onlyFirst, stage.adaptiveVsFixed.onlySecond)} (sets differ ${stage.adaptiveVsFixed.differentSets})`,
    versus(stage.fullVsHalf.onlyFirst, stage.fullVsHalf.onlySecond),
  ]);
  return [
    `Rescue success on all-failed H0 groups (${result.env}, K = ${result.k}, ${result.reps} groups per task, same attempts for every arm)`,
    renderTable(
      [
        'step',
        'all-failed',
        `adaptive ${m}x1`,
        `fixed ${m}x1`,
        `adaptive ${half}x2`,
        `random ${m}x1`,
        `H0 x${m}`,
        'any variant',
        'adaptive vs fixed',
        `${m}x1 vs ${half}x2`,
      ],
      rows,
    ),
    `"any variant": some variant of the pool solved the group's task in one attempt, the most any ${m}x1 routing could rescue on these attempts.`,
    '"+a / -b": groups only the first rescued / only the second; the others went the same way for both.',
  ].join('\n');
}
