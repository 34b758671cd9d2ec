import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Environment, type Harness, readJson, type Task, writeJsonAtomic } from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import type { SimulatedPolicyConfig } from '@harness-s/policy';
import {
  AdaptiveRouter,
  buildProfiles,
  defaultCarryOver,
  type ProfileSet,
  readProfiles,
  writeProfiles,
} from '@harness-s/router';
import { builtInSpecsIn, codeLanguageOf } from '../base-harness.js';
import { defaultStudySteps, readStudiedRun, rescueStudyFile, studyTrainingRun } from '../commands/rescue-study.js';
import { createEnvironment, type EnvironmentOptions } from '../environments.js';
import { jsonDifferences } from '../json-differences.js';
import { loadPoolHarnesses } from '../pool.js';
import { RescueStudyFile, type RescueStudySummary, summarizeRescueStudy } from '../rescue-study-summary.js';
import { loadTaskSplits, type TaskSplits } from '../task-splits.js';
import type { ResultRecord } from './results.js';
import type { EnvironmentBudget, ReproduceMethod } from './settings.js';
import { dropAnchorsFrom, evaluateOn, h0TopShare, logRouterAnchor, trainOne } from './train-one.js';

/** One training run of a reproduction, with the evaluations that follow it. */
export interface ReproduceJob {
  env: string;
  method: ReproduceMethod;
  variant: ResultRecord['variant'];
  seed: number;
  /** Where the environment's pool and initial profiles are, and where the run folder goes. */
  root: string;
  budget: EnvironmentBudget;
  /** Attempts in flight at once within the run. */
  concurrency: number;
  /** Where the environment runs episodes (`db`, `sandbox`); its embedded defaults when empty. */
  environmentOptions: EnvironmentOptions;
  /** The simulated policy's settings over its defaults ({} for the defaults). */
  sim: Partial<SimulatedPolicyConfig>;
  /** The adaptive router remembers what each rescue gave (`--rescue-memory`). */
  rescueMemory?: boolean;
  /** The similar-failure ranker's weight in the adaptive router's vote (`--failure-ranker`). */
  failureRanker?: number;
  /**
   * Harness-s main runs: a rescue study of the trained run, with this many H0 groups per task and
   * step, at these steps (default: first, middle and last).
   */
  rescueStudy?: { reps: number; steps?: number[] };
  /**
   * The record a continued reproduction saved for this run. When the run is found finished with the
   * same summary, its evaluations after training are kept instead of made again.
   */
  earlier?: ResultRecord;
}

/** Where a reproduction keeps an environment's pool and its profiles anchored on the initial policy. */
export const poolDirOf = (root: string, env: string) => join(root, 'pools', env);
export const initialProfilesDirOf = (root: string, env: string) => join(root, 'profiles', env, 'initial');

/** What every run of one environment shares: loaded once per process and reused. */
export interface EnvironmentResources {
  environment: Environment;
  splits: TaskSplits<Task>;
  h0: Harness;
  pool: Harness[];
  initialProfiles: ProfileSet;
}

/**
 * Harness families other than H0 that an environment ships, for cross-harness evaluation: those
 * written in H0's code language (AppWorld's `minimal-python` is for the real server, not the
 * embedded world the reproduction runs on).
 */
export function familiesOf(h0: Harness): string[] {
  return builtInSpecsIn(h0.spec.env, codeLanguageOf(h0.spec))
    .map((spec) => spec.id)
    .filter((name) => !name.startsWith('h0'));
}

/** Opens the environment and reads the pool and initial profiles that its preparation wrote. */
export async function openEnvironmentResources(
  root: string,
  env: string,
  options: EnvironmentOptions = {},
): Promise<EnvironmentResources> {
  const environment = createEnvironment(env, options);
  try {
    const [splits, h0, pool, initialProfiles] = await Promise.all([
      loadTaskSplits(environment),
      resolveHarness(env, 'h0'),
      loadPoolHarnesses(poolDirOf(root, env), env),
      readProfiles(join(initialProfilesDirOf(root, env), 'profiles.json')),
    ]);
    return { environment, splits, h0, pool, initialProfiles };
  } catch (error) {
    await environment.close();
    throw error;
  }
}

/** Opens each environment's resources once and closes them all at the end. */
export class ResourceCache {
  private readonly open = new Map<string, Promise<EnvironmentResources>>();

  get(job: ReproduceJob): Promise<EnvironmentResources> {
    const key = JSON.stringify([job.root, job.env, job.environmentOptions]);
    let resources = this.open.get(key);
    if (!resources) {
      resources = openEnvironmentResources(job.root, job.env, job.environmentOptions);
      // A failed open is not cached, so a later job may try again.
      resources.catch(() => this.open.delete(key));
      this.open.set(key, resources);
    }
    return resources;
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.allSettled(all.map(async (resources) => (await resources).environment.close()));
  }
}

/**
 * Runs one job: trains the method, evaluates the trained policy under the other harness families,
 * and for harness-s main runs re-anchors profiles on it, evaluates Rank-1 routing and measures how
 * often H0 is the router's top choice before and after training.
 */
export async function runJob(
  job: ReproduceJob,
  resources: EnvironmentResources,
  onStep?: (label: string) => void,
  signal?: AbortSignal,
): Promise<ResultRecord> {
  const { environment, splits, h0, pool, initialProfiles } = resources;
  const { budget, seed, concurrency } = job;
  const stoppable = signal ? { signal } : {};
  const { record, policy } = await trainOne({
    root: job.root,
    environment,
    splits,
    h0,
    pool,
    budget,
    seed,
    concurrency,
    initialProfiles,
    method: job.method,
    variant: job.variant,
    sim: job.sim,
    ...(job.rescueMemory ? { rescueMemory: true } : {}),
    ...(job.failureRanker ? { failureRanker: job.failureRanker } : {}),
    ...(onStep ? { onStep } : {}),
    ...stoppable,
  });
  if (job.variant !== 'main') return record;
  const earlier = job.earlier && sameTraining(job.earlier, record) ? job.earlier : undefined;
  if (earlier) {
    // A study it already has stays (its file is still beside the run) unless one is asked for.
    if (job.method === 'harness-s' && job.rescueStudy)
      return {
        ...earlier,
        rescueStudy: await studyJobRun(job, job.rescueStudy, resources, record.runDir, onStep, signal),
      };
    return earlier;
  }

  // The trained policy on the test tasks, under one harness or per-task routing.
  const evaluateTrained = (harness: Harness, harnessFor?: (task: Task) => Harness) =>
    evaluateOn({ environment, tasks: splits.test, harness, policy, budget, seed, concurrency, harnessFor, signal });
  const families: NonNullable<ResultRecord['families']> = {};
  for (const family of familiesOf(h0)) families[family] = await evaluateTrained(await resolveHarness(job.env, family));
  if (Object.keys(families).length) record.families = families;

  if (job.method === 'harness-s') {
    const finalProfiles = await buildProfiles({
      environment,
      tasks: splits.validation,
      h0,
      pool,
      policy,
      k: budget.profileK,
      seed: 0,
      concurrency,
      step: budget.steps,
      ...stoppable,
    });
    await writeProfiles(join(job.root, 'profiles', job.env, `trained-seed-${seed}`), finalProfiles);
    // The trained policy's anchor ends the run's router log (once, even when a job runs again).
    const runDir = join(job.root, record.runDir);
    await dropAnchorsFrom(runDir, budget.steps);
    await logRouterAnchor(runDir, finalProfiles, splits.validation);
    const router = new AdaptiveRouter({ profiles: finalProfiles, mode: 'fixed' });
    const byId = new Map([h0, ...pool].map((harness) => [harness.spec.id, harness]));
    const choices = new Map<string, string>();
    for (const task of splits.test) choices.set(task.id, await router.topChoice(task));
    record.rank1H0 = await evaluateTrained(h0);
    record.rank1 = await evaluateTrained(h0, (task) => byId.get(choices.get(task.id) ?? '') ?? h0);
    record.h0TopShare = {
      before: await h0TopShare(initialProfiles, splits.test),
      after: await h0TopShare(finalProfiles, splits.test),
    };
    if (job.rescueStudy)
      record.rescueStudy = await studyJobRun(job, job.rescueStudy, resources, record.runDir, onStep, signal);
  }
  return record;
}

/** Whether a saved record is of this run as it stands: every field of the run's summary the same. */
function sameTraining(earlier: ResultRecord, record: ResultRecord): boolean {
  const saved = earlier as Record<string, unknown>;
  return Object.entries(record).every(([key, value]) => jsonDifferences(saved[key], value).length === 0);
}

/**
 * The rescue study of a harness-s main run (by default at its first, middle and last step),
 * written to the run's rescue-study.json. A study already there with the same settings (a
 * continued reproduction) is read instead of run again.
 */
async function studyJobRun(
  job: ReproduceJob,
  { reps, steps: asked }: { reps: number; steps?: number[] },
  resources: EnvironmentResources,
  runDir: string,
  onStep?: (label: string) => void,
  signal?: AbortSignal,
): Promise<RescueStudySummary> {
  const run = await readStudiedRun(join(job.root, runDir));
  const path = join(run.dir, rescueStudyFile);
  const steps = asked ?? defaultStudySteps(run.snapshots);
  const profiles = join(initialProfilesDirOf(job.root, job.env), 'profiles.json');
  const settings = {
    reps,
    variants: run.variants,
    seed: run.seed,
    carryOver: defaultCarryOver,
    profileK: job.budget.profileK,
    profiles,
    failureRanker: job.failureRanker,
  };
  const label = (step: number) => `${job.env} rescue study seed ${job.seed}, step ${step}`;
  // A file that does not read (torn, older) is studied again.
  const earlier = existsSync(path) ? RescueStudyFile.safeParse(await readJson(path).catch(() => null)).data : undefined;
  let result: RescueStudyFile;
  if (
    earlier &&
    Object.entries(settings).every(([key, value]) => earlier[key as keyof typeof settings] === value) &&
    earlier.stages.map((stage) => stage.step).join() === steps.join()
  ) {
    result = earlier;
    for (const stage of result.stages) onStep?.(label(stage.step));
  } else {
    result = await studyTrainingRun({
      run,
      environment: resources.environment,
      splits: resources.splits,
      h0: resources.h0,
      pool: resources.pool,
      initialProfiles: { profiles: resources.initialProfiles, source: profiles },
      steps,
      reps: settings.reps,
      carryOver: settings.carryOver,
      profileK: settings.profileK,
      ...(settings.failureRanker ? { failureRanker: settings.failureRanker } : {}),
      concurrency: job.concurrency,
      onStage: (stage) => onStep?.(label(stage.step)),
      ...(signal ? { signal } : {}),
    });
    await writeJsonAtomic(path, result);
  }
  return summarizeRescueStudy(result);
}
