import { existsSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, countOf, type Harness, writeJsonAtomic } from '@harness-s/core';
import { parseDatabaseUrl } from '@harness-s/env-dbbench';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedPolicy, type SimulatedPolicyConfig } from '@harness-s/policy';
import { buildProfiles, writeProfiles } from '@harness-s/router';
import { builtInDiagnosis, failureRankerWeight } from '../diagnosis.js';
import {
  checkEnvironmentOptions,
  createEnvironment,
  type EnvironmentOptions,
  environmentNames,
  environmentOptions,
  environmentOptionsFor,
} from '../environments.js';
import { duration } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { reachesOtherThreads } from '../plugins.js';
import {
  noteUnknownSimSkills,
  type SimulatedSettingsFlags,
  simulatedSettings,
  simulatedSettingsText,
} from '../policies.js';
import { loadPoolHarnesses } from '../pool.js';
import { createProgress } from '../progress.js';
import {
  joinEarlierScope,
  recordKey,
  refuseOtherSettings,
  reproduceRuns,
  savedRecords,
} from '../reproduce/continuation.js';
import { createJobPool } from '../reproduce/job-pool.js';
import { initialProfilesDirOf, poolDirOf, type ReproduceJob } from '../reproduce/jobs.js';
import type { ResultRecord, Results } from '../reproduce/results.js';
import {
  ablations,
  budgetFor,
  defaultReproduceEnvs,
  type EnvironmentBudget,
  reproduceMethods,
} from '../reproduce/settings.js';
import { formatReproduceTables } from '../reproduce/tables.js';
import { loadTaskSplits } from '../task-splits.js';
import { runEvolve } from './evolve.js';
import { defaultStudySteps } from './rescue-study.js';

export interface ReproduceFlags extends SimulatedSettingsFlags {
  out?: string;
  quick?: boolean;
  envs?: string[];
  seeds?: number[];
  concurrency: number;
  /** Training runs at once (worker threads); default: one per core, at most four. */
  jobs?: number;
  /** Load each environment's pool from `<pools>/<env>/` instead of evolving it. */
  pools?: string;
  /** DBBench's database (`postgres://...`, `mysql://...`; embedded PGlite by default). */
  db?: string;
  /** Where SWE-Gym's episodes run: `local` (default) or `docker`. */
  sandbox?: string;
  /**
   * After training, study each harness-s run's rescue at its first, middle and last step with this
   * many H0 groups per training task and step (`rescue-study`); `true` for the default.
   */
  rescueStudy?: number | boolean;
  /** The steps the rescue studies look at (default: first, middle and last); implies `rescueStudy`. */
  studySteps?: number[];
  /** Harness-s runs with adaptive profiles remember what each rescue gave. */
  rescueMemory?: boolean;
  /** `--failure-ranker [weight]`: the routers also rank by how H0 failed (bare: the default weight). */
  failureRanker?: number | boolean;
  report?: boolean;
  quiet?: boolean;
}

/** H0 groups per training task and step of `reproduce --rescue-study` without a number. */
export const defaultStudyReps = 5;

/** Training runs at once by default: one per core, at most four. */
export const defaultJobs = (): number => Math.max(1, Math.min(4, availableParallelism()));

interface PrepareOptions {
  root: string;
  env: string;
  budget: EnvironmentBudget;
  concurrency: number;
  /** A folder of pools by environment (`<pools>/<env>/`) to load instead of evolving. */
  pools?: string;
  environmentOptions: EnvironmentOptions;
  /** The simulated policy's settings over its defaults. */
  sim: Partial<SimulatedPolicyConfig>;
  log: (line: string) => void;
  signal: AbortSignal;
}

/**
 * An environment's shared inputs, written into the run folder: its sibling pool (evolved on the
 * development tasks, or copied from `--pools`) and behaviour profiles anchored on the initial
 * policy. Both are kept when the folder already has them (a continued run).
 */
async function prepareEnvironment(options: PrepareOptions): Promise<void> {
  const { root, env, budget, log } = options;
  const poolDir = poolDirOf(root, env);
  const profilesDir = initialProfilesDirOf(root, env);
  if (existsSync(join(poolDir, 'index.json')) && existsSync(join(profilesDir, 'profiles.json'))) {
    log(`${env}: pool and initial profiles already in ${root}`);
    return;
  }
  const environment = createEnvironment(env, options.environmentOptions);
  try {
    const splits = await loadTaskSplits(environment);
    let pool: Harness[];
    if (options.pools) {
      const from = resolve(options.pools, env);
      // Loading checks every variant (errors name the user's files) before anything is copied.
      pool = await loadPoolHarnesses(from, env);
      await cp(from, poolDir, { recursive: true });
      log(`${env}: sibling pool loaded from ${from}`);
    } else {
      log(
        `${env}: evolving the sibling pool (${countOf(budget.evolveRounds, 'round')}) on ${splits.train.length + splits.validation.length} development tasks`,
      );
      await runEvolve({
        env,
        rounds: budget.evolveRounds,
        out: poolDir,
        policy: 'sim',
        // Failures on the development tasks (train and validation) show the repair directions;
        // the test tasks stay out of evolution so that evaluations on them are fair.
        subset: 'development',
        k: budget.profileK,
        seed: 0,
        concurrency: options.concurrency,
        parents: 3,
        directions: 6,
        childrenPerDirection: 2,
        solved: 'majority',
        sim: options.sim,
        quiet: true,
        printSummary: false,
        ...options.environmentOptions,
      });
      pool = await loadPoolHarnesses(poolDir, env);
    }
    const h0 = await resolveHarness(env, 'h0');
    const profiles = await buildProfiles({
      environment,
      tasks: splits.validation,
      h0,
      pool,
      policy: new SimulatedPolicy(options.sim),
      k: budget.profileK,
      seed: 0,
      concurrency: options.concurrency,
      signal: options.signal,
      // How H0 failed each validation task, for runs with the similar-failure ranker.
      diagnose: builtInDiagnosis(env, h0.spec),
    });
    await writeProfiles(profilesDir, profiles);
    log(`${env}: pool of ${pool.length} variants; profiles anchored on the initial policy`);
  } finally {
    await environment.close();
  }
}

/**
 * `harness-s reproduce`: the whole method on the embedded environments with the simulated policy.
 * Per environment: evolve a sibling pool, anchor behaviour profiles, train every method over
 * several seeds, the router ablations, then evaluate under H0, with Rank-1 routing and under the
 * other harness families; print the tables, write `results.json` and the report.
 */
export async function runReproduce(flags: ReproduceFlags): Promise<ResultRecord[]> {
  const quick = flags.quick ?? false;
  const envs = flags.envs ?? [...defaultReproduceEnvs];
  for (const env of envs) {
    if (!environmentNames().includes(env))
      throw new ConfigError(
        `--envs: unknown environment '${env}'; known: ${environmentNames().join(', ')} (more come from plug-ins: HARNESS_S_PLUGINS)`,
        { code: 'bad-flag' },
      );
  }
  const seeds = flags.seeds ?? [1, 2, 3];
  const sim = (await simulatedSettings(flags)) ?? {};
  const settingsText = simulatedSettingsText(sim);
  const jobs = flags.jobs ?? defaultJobs();
  // Every job runs the simulated policy, which walks the environment's plans.
  const where: EnvironmentOptions = {
    ...environmentOptions({
      ...(flags.db ? { db: flags.db } : {}),
      ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    }),
    actionsFrom: 'plan',
  };
  // A flag one of the environments takes goes to it only.
  checkEnvironmentOptions(envs, where);
  const whereFor = (env: string) => environmentOptionsFor(env, where);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new ConfigError(`--jobs must be a positive integer, got ${jobs}`, { code: 'bad-flag' });
  const unreachable = jobs > 1 ? envs.filter((env) => !reachesOtherThreads(env)) : [];
  if (unreachable.length > 0)
    throw new ConfigError(
      `--envs ${unreachable.join(', ')}: registered in code, which --jobs ${jobs}'s worker threads cannot see; load the plug-in from a module (loadPlugins, or HARNESS_S_PLUGINS), or use --jobs 1`,
      { code: 'bad-flag' },
    );
  const target = where.db ? parseDatabaseUrl(where.db) : undefined;
  if (jobs > 1 && target?.engine === 'pglite' && target.dataDir !== undefined)
    throw new ConfigError(
      `--db ${where.db}: a PGlite folder serves one process at a time; use --jobs 1, or pglite: (in memory) or a server`,
      { code: 'bad-flag' },
    );
  if (flags.pools) {
    for (const env of envs) {
      if (!existsSync(join(resolve(flags.pools), env)))
        throw new ConfigError(
          `--pools: ${join(resolve(flags.pools), env)} does not exist (one pool folder per environment)`,
          { code: 'bad-flag' },
        );
    }
  }
  const root = resolve(
    flags.out ?? join('runs', `reproduce-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`),
  );
  const started = performance.now();
  const log = (line: string) => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };
  if (flags.simConfig !== undefined)
    for (const env of envs) {
      const environment = createEnvironment(env, whereFor(env));
      noteUnknownSimSkills(sim, environment, log);
      await environment.close();
    }
  // --study-steps alone asks for a study; --rescue-study without a number takes the default reps.
  const asked = flags.rescueStudy ?? (flags.studySteps ? true : undefined);
  const studyReps = asked === true ? defaultStudyReps : asked === false ? undefined : asked;
  if (studyReps !== undefined && !(Number.isInteger(studyReps) && studyReps >= 1))
    throw new ConfigError(`--rescue-study must be an integer >= 1, got ${studyReps}`, { code: 'bad-flag' });
  const budgets = Object.fromEntries(envs.map((env) => [env, budgetFor(env, quick)]));
  for (const env of envs) {
    const beyond = (flags.studySteps ?? []).filter((step) => step > budgetFor(env, quick).steps);
    if (beyond.length)
      throw new ConfigError(
        `--study-steps: ${env} trains ${budgetFor(env, quick).steps} steps, so it has no step ${beyond.join(', ')}`,
        { code: 'bad-flag' },
      );
  }
  const studyAt = flags.studySteps ? [...new Set(flags.studySteps)].sort((a, b) => a - b) : undefined;
  const policy = new SimulatedPolicy(sim).describe();
  const failureRanker = failureRankerWeight(flags.failureRanker);
  // Recorded only when set, so that folders started before the flag existed continue.
  const router = { rescueMemory: Boolean(flags.rescueMemory), ...(failureRanker ? { failureRanker } : {}) };
  await refuseOtherSettings(root, { budgets, policy, router });
  const scope = await joinEarlierScope(root, { envs, seeds, budgets, createdAt: new Date().toISOString() });
  await writeJsonAtomic(join(root, 'config.json'), {
    command: 'reproduce',
    envs: scope.envs,
    methods: reproduceMethods,
    ablations,
    seeds: scope.seeds,
    quick,
    jobs,
    ...(flags.pools ? { pools: resolve(flags.pools) } : {}),
    // Where episodes ran; a database URL's credentials stay out of the record.
    ...(where.db ? { db: where.db.replace(/\/\/[^/@]*@/, '//') } : {}),
    ...(where.sandbox ? { sandbox: where.sandbox } : {}),
    budgets: scope.budgets,
    policy,
    router,
    ...(studyReps ? { rescueStudy: { reps: studyReps, ...(studyAt ? { steps: studyAt } : {}) } } : {}),
    createdAt: scope.createdAt,
    ...(scope.continuedAt ? { continuedAt: scope.continuedAt } : {}),
  });

  // Progress counts training steps, and each step a rescue study looks at.
  const studiedSteps = (steps: number) =>
    studyReps ? (studyAt ?? defaultStudySteps(Array.from({ length: steps + 1 }, (_, step) => step))).length : 0;
  const totalSteps = envs.reduce((sum, env) => {
    const { steps } = budgetFor(env, quick);
    return sum + seeds.length * (steps * (reproduceMethods.length + ablations.length) + studiedSteps(steps));
  }, 0);
  log(
    `Reproducing Harness-S on ${envs.join(', ')} with the simulated policy${settingsText ? ` (${settingsText})` : ''}: ${reproduceMethods.length} methods + ${ablations.length} router ablations x ${seeds.length} seeds${quick ? ' (quick)' : ''}${studyReps ? `, rescue studies of ${studyReps} groups per task and step` : ''}, ${jobs} at a time`,
  );
  // Made at the first step (pools and profiles, prepared before, say so themselves).
  let progress: ReturnType<typeof createProgress> | undefined;
  let stepsDone = 0;
  const onStep = (label: string) => {
    stepsDone += 1;
    if (!flags.quiet) progress ??= createProgress('training steps', totalSteps);
    progress?.update(stepsDone, label);
  };

  // A continued reproduction keeps the evaluations of the runs it finished (see ReproduceJob.earlier),
  // and in results.json the records of environments or seeds this invocation does not run.
  const saved = await savedRecords(root);
  const runs = reproduceRuns(envs, seeds);
  const ours = new Set(runs.map(recordKey));
  const others = [...saved.values()].filter((record) => !ours.has(recordKey(record)));
  // Jobs in a fixed order; records keep that order whatever finishes first.
  const results: Array<ResultRecord | undefined> = [];
  // Saves one after another, so the file never goes back to an older list.
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    saving = saving.then(() =>
      writeJsonAtomic(join(root, 'results.json'), {
        schemaVersion: 1,
        records: [...results.filter((record): record is ResultRecord => record !== undefined), ...others],
      } satisfies Results),
    );
    return saving;
  };
  const pool = createJobPool(jobs, onStep);
  const running: Array<Promise<void>> = [];
  const leftovers = envs.map((env) => leftoversOf(env, whereFor(env))).filter(Boolean);
  const interrupts = listenForInterrupts({ leftovers: leftovers.join('; ') || undefined });
  interrupts.signal.addEventListener('abort', () => pool.interrupt(), { once: true });
  try {
    for (const env of envs) {
      const budget = budgetFor(env, quick);
      await prepareEnvironment({
        root,
        env,
        budget,
        concurrency: flags.concurrency,
        environmentOptions: whereFor(env),
        sim,
        log,
        signal: interrupts.signal,
        ...(flags.pools ? { pools: flags.pools } : {}),
      });
      for (const { seed, method, variant } of runs.filter((run) => run.env === env)) {
        const index = results.push(undefined) - 1;
        const job: ReproduceJob = {
          env,
          method,
          variant,
          seed,
          root,
          budget,
          concurrency: flags.concurrency,
          environmentOptions: whereFor(env),
          sim,
          ...(router.rescueMemory ? { rescueMemory: true } : {}),
          ...(failureRanker ? { failureRanker } : {}),
          ...(studyReps && method === 'harness-s' && variant === 'main'
            ? { rescueStudy: { reps: studyReps, ...(studyAt ? { steps: studyAt } : {}) } }
            : {}),
        };
        const earlier = saved.get(recordKey(job));
        if (earlier) job.earlier = earlier;
        running.push(
          pool.run(job).then((record) => {
            results[index] = record;
            return save();
          }),
        );
      }
    }
    await Promise.all(running);
  } catch (error) {
    throw interrupts.explain(
      error,
      `finished runs and the checkpoints of the others are kept in ${root}; to continue, run reproduce again with the same flags and --out ${root}`,
    );
  } finally {
    // Interrupted, running jobs stop at their next attempt and close what they opened; after a
    // failure the rest is abandoned: queued jobs are rejected, running ones stopped.
    await interrupts.releaseAfter(async () => {
      if (interrupts.signal.aborted) await Promise.allSettled(running);
      await pool.close();
      await Promise.allSettled(running);
      progress?.stop();
    });
  }
  const records = results.filter((record): record is ResultRecord => record !== undefined);

  // The tables show the folder's records, as results.json and the report do: earlier ones included.
  const kept = others.length
    ? `\n${others.length} record(s) of runs made before, not by this invocation, are in the tables too.`
    : '';
  process.stdout.write(
    `\n${formatReproduceTables([...records, ...others])}\n${kept}\nResults: ${join(root, 'results.json')} (${duration(performance.now() - started)})\n`,
  );
  if (flags.report !== false) {
    try {
      const { writeReport } = await import('../report/index.js');
      const path = await writeReport(root);
      process.stdout.write(`Report: ${path}\n`);
    } catch (error) {
      process.stderr.write(`harness-s: the report could not be written: ${(error as Error).message}\n`);
    }
  }
  return records;
}
