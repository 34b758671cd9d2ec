import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  countOf,
  deriveSeed,
  type Environment,
  type Harness,
  namingFile,
  policySnapshotFile,
  readPolicySnapshot,
  type Task,
  writeJsonAtomic,
} from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import {
  buildProfiles,
  type ProfileSet,
  ProfileStatsRanker,
  type RescueStudyStage,
  readProfiles,
  SimilarTaskRanker,
  studyRescue,
} from '@harness-s/router';
import { builtInDiagnosis, failureRankerWeight, warnWithoutFailures, withFailureRanker } from '../diagnosis.js';
import { createEnvironment, type EnvironmentOptions, environmentOptions } from '../environments.js';
import { percent, renderTable } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { loadPoolHarnesses } from '../pool.js';
import { createProgress, type Progress } from '../progress.js';
import { pairedText, studyArmHeadings, studyShapes } from '../rescue-study-summary.js';
import { defaultStudySteps, readStudiedRun, type StudiedRunInfo } from '../studied-run.js';
import { loadTaskSplits, recordedSplit, type TaskSplits } from '../task-splits.js';

export { defaultStudySteps, readStudiedRun, type StudiedRunInfo } from '../studied-run.js';

/** How a run is studied. */
export interface StudySettings {
  /** Steps to study (default: first, middle and last of the run's snapshots). */
  steps?: number[];
  /** H0 groups drawn per training task and step. */
  reps: number;
  /** Rescue width m (default: the run's). */
  variants?: number;
  /** Share of the first anchor's evidence the re-anchored profiles keep. */
  carryOver: number;
  /** Attempts per validation task when anchoring. */
  profileK: number;
  /** The similar-failure ranker's weight in both routers' votes; absent: not used. */
  failureRanker?: number;
  /** Seed of the study's draws (default: the run's seed, so studies of different runs draw apart). */
  seed?: number;
  concurrency: number;
}

export interface RescueStudyFlags extends EnvironmentOptions, Omit<StudySettings, 'failureRanker'> {
  /** `--failure-ranker [weight]`. */
  failureRanker?: number | boolean;
  /** The training run whose policy snapshots are studied. */
  run: string;
  /** The run's sibling pool (default: the folder its config.json records). */
  pool?: string;
  /** The first anchor's profiles (default: anchored on the run's step-0 policy). */
  profiles?: string;
  split?: string;
  out?: string;
  quiet?: boolean;
}

export interface RescueStudyResult {
  schemaVersion: 1;
  run: string;
  env: string;
  k: number;
  variants: number;
  reps: number;
  seed: number;
  carryOver: number;
  profileK: number;
  /** The similar-failure ranker's weight, when the routers used it. */
  failureRanker?: number;
  /** Where the first anchor's profiles came from: a file, or `step 0` (anchored on the run's first policy). */
  profiles: string;
  stages: RescueStudyStage[];
}

/** Where a run's study is written unless told otherwise. */
export const rescueStudyFile = 'rescue-study.json';

/** What a study of one run needs besides the run: the environment and pool it was trained with. */
export interface StudyTrainingRunOptions extends StudySettings {
  run: StudiedRunInfo;
  environment: Environment;
  splits: TaskSplits<Task>;
  h0: Harness;
  pool: readonly Harness[];
  /** Where the pool came from, for errors (`--pool DIR`). */
  poolSource?: string;
  /** The first anchor's profiles (default: anchored on the run's step-0 policy), and their file. */
  initialProfiles?: { profiles: ProfileSet; source: string };
  /** Lines about what the study is doing. */
  log?: (line: string) => void;
  /** Told how far each phase of each studied step is (anchoring, H0 groups, rescue attempts). */
  onProgress?: (step: number, phase: 'anchor' | 'groups' | 'rescue', done: number, total: number) => void;
  /** Told when a step is studied. */
  onStage?: (stage: RescueStudyStage) => void;
  /** Stops the study. */
  signal?: AbortSignal;
}

/**
 * The rescue study of a training run: how each way of rescuing (adaptive or fixed profiles, m x 1
 * or m/2 x 2, random variants, fresh H0 attempts) does on the all-failed H0 groups of the policy
 * at chosen steps of the run, all on the same groups and attempts, against the pool's ceiling.
 */
export async function studyTrainingRun(options: StudyTrainingRunOptions): Promise<RescueStudyResult> {
  const { run, environment, splits, h0, pool } = options;
  const log = options.log ?? (() => {});
  const steps = options.steps ?? defaultStudySteps(run.snapshots);
  const missing = steps.filter((step) => !run.snapshots.includes(step));
  if (missing.length)
    throw new ConfigError(
      `--steps: ${run.dir} has no snapshot of step ${missing.join(', ')} (it has ${run.snapshots.join(', ')})`,
      { code: 'bad-flag' },
    );
  const poolIds = new Set(pool.map((harness) => harness.spec.id));
  const absent = run.pool.filter((id) => !poolIds.has(id));
  if (absent.length)
    throw new ConfigError(
      `${options.poolSource ?? 'the pool'}: the run's pool had ${absent.length} variant(s) this one lacks (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', ...' : ''})`,
      { code: 'bad-flag' },
    );
  const trained = new Set(run.trainTasks);
  if (splits.train.length !== trained.size || splits.train.some((task) => !trained.has(task.id)))
    throw new ConfigError(
      `the run trained on other tasks than these ${splits.train.length} (${splits.source}); pass the --split it was trained with`,
      { code: 'bad-flag' },
    );
  const { k } = run;
  const seed = options.seed ?? run.seed;
  const variants = options.variants ?? run.variants;
  const policyAt = async (step: number) => {
    const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy());
    const snapshot = await readPolicySnapshot(run.dir, step);
    namingFile(join(run.dir, policySnapshotFile(step)), () => trainer.restore(snapshot.trainer));
    return trainer.policy;
  };
  // With the similar-failure ranker, anchoring records how H0 failed each validation task.
  const weight = options.failureRanker;
  const diagnose = weight === undefined ? undefined : builtInDiagnosis(run.env, h0.spec);
  if (diagnose && options.initialProfiles)
    warnWithoutFailures(options.initialProfiles.profiles, options.initialProfiles.source, log);
  let initialProfiles = options.initialProfiles?.profiles;
  if (!initialProfiles) {
    log(`Anchoring the first profiles on the run's step-0 policy (${pool.length + 1} harnesses)`);
    initialProfiles = await buildProfiles({
      environment,
      tasks: splits.validation,
      h0,
      pool,
      policy: await policyAt(0),
      k: options.profileK,
      seed: deriveSeed(seed, 'anchor', 0),
      concurrency: options.concurrency,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(diagnose ? { diagnose } : {}),
    });
  }
  log(
    `Rescue study of ${run.dir}: steps ${steps.join(', ')}, ${splits.train.length} tasks x ${options.reps} H0 groups of ${k}, ` +
      `rescue ${variants} variants (pool ${pool.length})`,
  );
  const stages: RescueStudyStage[] = [];
  for (const step of steps) {
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
      reps: options.reps,
      seed,
      carryOver: options.carryOver,
      profileK: options.profileK,
      ...(diagnose
        ? { diagnose, rankers: withFailureRanker([new ProfileStatsRanker(), new SimilarTaskRanker()], weight) }
        : {}),
      concurrency: options.concurrency,
      onProgress: (phase, done, total) => options.onProgress?.(step, phase, done, total),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    stages.push(stage);
    options.onStage?.(stage);
    log(
      `step ${step}: ${stage.allFailed} of ${stage.groups} H0 groups failed every attempt` +
        (stage.infraErrors ? `; ${stage.infraErrors} groups left out for infrastructure errors` : '') +
        (stage.rescueInfraErrors ? `; ${stage.rescueInfraErrors} rescue attempts hit infrastructure errors` : ''),
    );
  }
  return {
    schemaVersion: 1,
    run: run.dir,
    env: run.env,
    k,
    variants,
    reps: options.reps,
    seed,
    carryOver: options.carryOver,
    profileK: options.profileK,
    ...(weight === undefined ? {} : { failureRanker: weight }),
    profiles: options.initialProfiles?.source ?? 'step 0',
    stages,
  };
}

/**
 * `harness-s rescue-study RUN_DIR`: the study of a training run (`studyTrainingRun`), printed as a
 * table and written to `RUN_DIR/rescue-study.json` (or `--out`).
 */
export async function runRescueStudy(flags: RescueStudyFlags): Promise<RescueStudyResult> {
  const run = await readStudiedRun(flags.run);
  const failureRanker = failureRankerWeight(flags.failureRanker);
  // The study replays the simulated policy, which walks the environment's plans.
  const environment = createEnvironment(run.env, { ...environmentOptions(flags), actionsFrom: 'plan' });
  const interrupts = listenForInterrupts({ leftovers: leftoversOf(run.env, environmentOptions(flags)) });
  try {
    const h0 = await resolveHarness(run.env, run.h0);
    const poolDir = flags.pool ?? run.poolDir;
    if (poolDir === undefined)
      throw new ConfigError(
        `${run.dir}/config.json records no pool folder, nor is the run in a reproduction whose pools/${run.env} holds one; give the run's pool with --pool DIR`,
        {
          code: 'bad-flag',
        },
      );
    if (flags.pool === undefined && !existsSync(poolDir))
      throw new ConfigError(
        `the run's pool ${poolDir}, recorded in its config.json, is gone; give it with --pool DIR`,
        {
          code: 'bad-flag',
        },
      );
    const pool = await loadPoolHarnesses(poolDir, run.env);
    // The tasks the run was cut from, unless --split says otherwise.
    const splits = await loadTaskSplits(environment, flags.split ?? recordedSplit(run.dir, run.recordedSplit));
    const log = (line: string) => {
      if (!flags.quiet) process.stderr.write(`${line}\n`);
    };
    let progress: Progress | undefined;
    let phase = '';
    const result = await studyTrainingRun({
      run,
      environment,
      splits,
      h0,
      pool,
      poolSource: flags.pool ? `--pool ${flags.pool}` : `${poolDir} (the run's pool; --pool DIR names another)`,
      ...(flags.profiles
        ? {
            initialProfiles: {
              profiles: await readProfiles(flags.profiles, { env: environment.id }),
              source: resolve(flags.profiles),
            },
          }
        : {}),
      ...(flags.steps ? { steps: flags.steps } : {}),
      reps: flags.reps,
      ...(flags.variants !== undefined ? { variants: flags.variants } : {}),
      carryOver: flags.carryOver,
      profileK: flags.profileK,
      ...(failureRanker === undefined ? {} : { failureRanker }),
      ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
      concurrency: flags.concurrency,
      log,
      onProgress: (step, next, done, total) => {
        if (flags.quiet) return;
        const key = `${step}:${next}`;
        if (key !== phase) {
          progress?.stop();
          phase = key;
          const label = { anchor: 're-anchoring', groups: 'H0 groups', rescue: 'rescue attempts' }[next];
          // A live bar on a terminal; in a log, one line as each phase starts.
          if (process.stderr.isTTY) progress = createProgress(`step ${step}: ${label}`, total);
          else log(`step ${step}: ${label}, ${total} ${next === 'anchor' ? 'harnesses' : 'attempts'}`);
        }
        progress?.update(done, `${done}/${total}`);
      },
      onStage: () => {
        progress?.stop();
        progress = undefined;
        phase = '';
      },
      signal: interrupts.signal,
    }).catch((error: unknown) => {
      progress?.stop();
      throw interrupts.explain(error, 'nothing was written; run the same command again');
    });
    const out = resolve(flags.out ?? join(run.dir, rescueStudyFile));
    await writeJsonAtomic(out, result);
    process.stdout.write(`${formatRescueStudy(result)}\nWritten: ${out}\n`);
    return result;
  } finally {
    await interrupts.releaseAfter(() => environment.close?.());
  }
}

/** The study as a table: one row per step, each arm's rescue rate, and the paired comparisons. */
export function formatRescueStudy(result: RescueStudyResult): string {
  const arms = studyArmHeadings(result.variants);
  const rate = (value: number | null) => (value === null ? '-' : percent(value));
  const rows = result.stages.map((stage) => [
    String(stage.step),
    `${stage.allFailed}/${stage.groups}`,
    ...arms.map(([arm]) => rate(stage.arms[arm].rate)),
    `${pairedText(stage.adaptiveVsFixed)} (sets differ ${stage.adaptiveVsFixed.differentSets})`,
    pairedText(stage.fullVsHalf),
  ]);
  const { full, half } = studyShapes(result.variants);
  return [
    `Rescue success on all-failed H0 groups (${result.env}, K = ${result.k}, ${countOf(result.reps, 'group')} per task, same attempts for every arm)`,
    renderTable(
      ['step', 'all-failed', ...arms.map(([, heading]) => heading), 'adaptive vs fixed', `${full} vs ${half}`],
      rows,
    ),
    `"any variant": some variant of the pool solved the group's task in one attempt, the most any ${full} routing could rescue on these attempts.`,
    '"+a / -b": groups only the first rescued / only the second; the others went the same way for both.',
  ].join('\n');
}
