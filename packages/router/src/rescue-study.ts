import {
  deriveSeed,
  type Environment,
  type Harness,
  isScored,
  mapConcurrent,
  type Policy,
  Random,
  runAttempt,
  type Task,
  type Trajectory,
} from '@harness-s/core';
import { AdaptiveRouter } from './adaptive-router.js';
import { buildProfiles, carryOverProfiles, type ProfileSet } from './profiles.js';
import type { Ranker } from './rankers.js';
import { type Diagnose, failureSignatures, sumSignatures } from './signatures.js';

/**
 * The ways of rescuing an all-failed H0 group that a study compares, all on the same failed groups
 * and the same attempts (common random numbers), so their differences are the routing's doing:
 *
 * - `adaptive`: the router with profiles re-anchored on the policy of the stage, m variants x 1.
 * - `fixed`: the router with the first profiles, m x 1.
 * - `adaptive-half`: the adaptive router's top m/2 variants x 2 attempts each.
 * - `random`: m distinct variants at random (the exact expectation over all draws).
 * - `h0-resample`: m fresh attempts under H0.
 * - `ceiling`: some variant of the pool solves the task in one attempt: what no routing of m x 1
 *   attempts on these draws can beat.
 */
export const rescueArms = ['adaptive', 'fixed', 'adaptive-half', 'random', 'h0-resample', 'ceiling'] as const;
export type RescueArm = (typeof rescueArms)[number];

export interface RescueStudyOptions<T extends Task> {
  environment: Environment<T>;
  /** The tasks whose H0 groups are drawn (the training tasks). */
  tasks: readonly T[];
  /** The validation tasks profiles are anchored on. */
  validation: readonly T[];
  h0: Harness;
  pool: readonly Harness[];
  /** The policy of the stage studied, frozen. */
  policy: Policy;
  /** The training step the policy comes from (0: before training). */
  step: number;
  /** The first anchor's profiles: what the fixed router keeps. */
  initialProfiles: ProfileSet;
  /** H0 group size (K). */
  k: number;
  /** Rescue width m: variants of `adaptive`, `fixed`, `random`; attempts of `h0-resample`. */
  variants: number;
  /** H0 groups drawn per task. */
  reps: number;
  seed: number;
  /** Share of the first anchor's evidence the re-anchored profiles keep (the router's default 0.5). */
  carryOver?: number;
  /** Attempts per validation task when re-anchoring (the router's default 2). */
  profileK?: number;
  rankers?: Ranker[];
  decay?: number;
  /** Reads failed attempts for the similar-failure ranker (see `AdaptiveRouterOptions.diagnose`). */
  diagnose?: Diagnose;
  concurrency: number;
  maxInfraRetries?: number;
  /** Stops the study (its attempts end as interrupted, and it rejects). */
  signal?: AbortSignal;
  /** Told what the study is doing: anchoring, H0 groups, rescue attempts (done of total). */
  onProgress?: (phase: 'anchor' | 'groups' | 'rescue', done: number, total: number) => void;
}

/** How one arm did: failed groups it rescued (an attempt succeeded), as a count and a rate. */
export interface ArmResult {
  rescued: number;
  rate: number | null;
}

export interface RescueStudyStage {
  step: number;
  policyVersion: string;
  /** H0 groups drawn (tasks x reps) and how many failed every attempt. */
  groups: number;
  allFailed: number;
  /** Groups left out because an attempt ended in an infrastructure error. */
  infraErrors: number;
  /** Rescue attempts that ended in an infrastructure error (counted as not solving). */
  rescueInfraErrors: number;
  arms: Record<RescueArm, ArmResult>;
  /**
   * Paired comparisons on the same failed groups: groups only the first arm rescued, and only the
   * second (the rest went the same way for both), and how often the two rescue sets differed.
   */
  adaptiveVsFixed: { onlyFirst: number; onlySecond: number; differentSets: number };
  fullVsHalf: { onlyFirst: number; onlySecond: number };
  /**
   * Every all-failed group: the two routers' rescue sets, the variants that solved it, the arms
   * that rescued it (`random`, an expectation, is never among them).
   */
  cases: RescueCase[];
}

export interface RescueCase {
  taskId: string;
  rep: number;
  adaptive: string[];
  fixed: string[];
  /** Variants whose one attempt solved the task. */
  solvers: string[];
  rescuedBy: RescueArm[];
}

/** 1 - C(n - s, m) / C(n, m): the chance that m of n variants drawn at random include one of s solvers. */
export function randomSubsetHit(n: number, solvers: number, m: number): number {
  if (m >= n) return solvers > 0 ? 1 : 0;
  let miss = 1;
  for (let i = 0; i < m; i += 1) miss *= (n - solvers - i) / (n - i);
  return 1 - Math.max(0, miss);
}

const solved = (trajectory: Trajectory | undefined): boolean => Boolean(trajectory?.evaluation?.success);

/**
 * A rescue study of one stage of training: with the stage's policy frozen, draws K attempts under
 * H0 on every task `reps` times; for each group that failed every attempt, runs one attempt under
 * every variant of the pool, a second under the adaptive router's top m/2, and m fresh attempts
 * under H0, and scores each arm (`rescueArms`) on the same attempts. The training runs' own rescue
 * counts are few and depend on everything before them; this asks the routing question alone, on
 * as many failed groups as the budget allows.
 */
export async function studyRescue<T extends Task>(options: RescueStudyOptions<T>): Promise<RescueStudyStage> {
  const { environment, h0, pool, policy, step, k, variants: m, reps, seed } = options;
  const concurrency = options.concurrency;
  const attempt = (task: T, harness: Harness, parts: ReadonlyArray<string | number>, index: number) =>
    runAttempt(
      {
        environment,
        task,
        harness,
        policy,
        runId: `rescue-study-${step}`,
        attempt: index,
        seed: deriveSeed(seed, step, task.id, ...parts),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      options.maxInfraRetries === undefined ? {} : { maxInfraRetries: options.maxInfraRetries },
    );

  // The adaptive router's profiles: re-anchored on this policy, carrying the first anchor's evidence.
  let adaptiveProfiles = options.initialProfiles;
  if (step > 0) {
    const fresh = await buildProfiles({
      environment,
      tasks: options.validation,
      h0,
      pool,
      policy,
      k: options.profileK ?? 2,
      seed: deriveSeed(seed, 'anchor', step),
      concurrency,
      step,
      onHarness: (_id, done, total) => options.onProgress?.('anchor', done, total),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.diagnose ? { diagnose: options.diagnose } : {}),
    });
    adaptiveProfiles = carryOverProfiles(options.initialProfiles, fresh, options.carryOver ?? 0.5);
  }
  const routerWith = (profiles: ProfileSet) =>
    new AdaptiveRouter({
      profiles,
      mode: 'fixed',
      ...(options.rankers ? { rankers: options.rankers } : {}),
      ...(options.decay !== undefined ? { decay: options.decay } : {}),
    });
  const adaptive = routerWith(adaptiveProfiles);
  const fixed = routerWith(options.initialProfiles);

  // H0 groups: every attempt of every (task, rep) in one queue, then grouped.
  const cases = options.tasks.flatMap((task) => Array.from({ length: reps }, (_, rep) => ({ task, rep })));
  const baseJobs = cases.flatMap((item) => Array.from({ length: k }, (_, index) => ({ item, index })));
  let baseDone = 0;
  // Only what each attempt came to is kept (and how it failed, read at once): thousands of whole
  // trajectories would hold their transcripts.
  const diagnose = options.diagnose;
  const base = await mapConcurrent(baseJobs, concurrency, async ({ item, index }) => {
    const trajectory = await attempt(item.task, h0, [item.rep, 'base', index], index);
    baseDone += 1;
    options.onProgress?.('groups', baseDone, baseJobs.length);
    const signatures = diagnose ? (await failureSignatures([trajectory], diagnose)).get(trajectory.taskId) : undefined;
    return { scored: isScored(trajectory), success: solved(trajectory), signatures };
  });
  const groups = cases.map((item, caseIndex) => ({
    ...item,
    outcomes: base.slice(caseIndex * k, (caseIndex + 1) * k),
  }));
  const infraErrors = groups.filter((group) => group.outcomes.some((outcome) => !outcome.scored)).length;
  const failed = groups.filter(
    (group) => group.outcomes.every((outcome) => outcome.scored) && !group.outcomes.some((outcome) => outcome.success),
  );

  // Rescue sets, then every attempt any arm needs, run once.
  const specs = pool.map((harness) => harness.spec);
  const half = Math.max(1, Math.floor(m / 2));
  const selections = await Promise.all(
    failed.map(async ({ task, rep, outcomes }) => {
      const failures = diagnose ? sumSignatures(outcomes.map((outcome) => outcome.signatures)) : undefined;
      const request = (router: AdaptiveRouter) =>
        router.rescueSet(
          { task, pool: specs, count: m, step, random: new Random(deriveSeed(seed, step, task.id, rep)) },
          failures,
        );
      return { adaptive: await request(adaptive), fixed: await request(fixed) };
    }),
  );
  type Kind = 'rescue' | 'resample';
  const job = (index: number, task: T, harness: Harness, kind: Kind, rep: number, attemptIndex: number) => ({
    key: `${index}:${kind}:${harness.spec.id}:${attemptIndex}`,
    run: () => attempt(task, harness, [rep, kind, harness.spec.id, attemptIndex], attemptIndex),
  });
  const byId = new Map(pool.map((harness) => [harness.spec.id, harness]));
  const jobs = failed.flatMap(({ task, rep }, index) => [
    ...pool.map((harness) => job(index, task, harness, 'rescue', rep, 0)),
    ...(selections[index]?.adaptive.slice(0, half) ?? []).flatMap((id) => {
      const harness = byId.get(id);
      return harness ? [job(index, task, harness, 'rescue', rep, 1)] : [];
    }),
    ...Array.from({ length: m }, (_, attemptIndex) => job(index, task, h0, 'resample', rep, attemptIndex)),
  ]);
  let rescueDone = 0;
  const successes = new Set<string>();
  let rescueInfraErrors = 0;
  await mapConcurrent(jobs, concurrency, async ({ key, run }) => {
    const trajectory = await run();
    if (solved(trajectory)) successes.add(key);
    if (!isScored(trajectory)) rescueInfraErrors += 1;
    rescueDone += 1;
    options.onProgress?.('rescue', rescueDone, jobs.length);
  });
  const succeeded = (index: number, kind: Kind, harnessId: string, attemptIndex: number) =>
    successes.has(`${index}:${kind}:${harnessId}:${attemptIndex}`);

  const counts: Record<RescueArm, number> = {
    adaptive: 0,
    fixed: 0,
    'adaptive-half': 0,
    random: 0,
    'h0-resample': 0,
    ceiling: 0,
  };
  const adaptiveVsFixed = { onlyFirst: 0, onlySecond: 0, differentSets: 0 };
  const fullVsHalf = { onlyFirst: 0, onlySecond: 0 };
  const studied: RescueCase[] = [];
  for (const [index, selection] of selections.entries()) {
    const firstAttempt = (id: string) => succeeded(index, 'rescue', id, 0);
    const byAdaptive = selection.adaptive.some(firstAttempt);
    const byFixed = selection.fixed.some(firstAttempt);
    const byHalf = selection.adaptive
      .slice(0, half)
      .some((id) => firstAttempt(id) || succeeded(index, 'rescue', id, 1));
    const solvers = pool.map((harness) => harness.spec.id).filter(firstAttempt);
    const byResample = Array.from({ length: m }, (_, attemptIndex) =>
      succeeded(index, 'resample', h0.spec.id, attemptIndex),
    ).some(Boolean);
    const rescuedBy = {
      adaptive: byAdaptive,
      fixed: byFixed,
      'adaptive-half': byHalf,
      random: false,
      'h0-resample': byResample,
      ceiling: solvers.length > 0,
    } satisfies Record<RescueArm, boolean>;
    for (const arm of rescueArms) counts[arm] += Number(rescuedBy[arm]);
    counts.random += randomSubsetHit(pool.length, solvers.length, m);
    const group = failed[index] as (typeof failed)[number];
    studied.push({
      taskId: group.task.id,
      rep: group.rep,
      adaptive: selection.adaptive,
      fixed: selection.fixed,
      solvers,
      rescuedBy: rescueArms.filter((arm) => rescuedBy[arm]),
    });
    if (byAdaptive && !byFixed) adaptiveVsFixed.onlyFirst += 1;
    if (byFixed && !byAdaptive) adaptiveVsFixed.onlySecond += 1;
    if ([...selection.adaptive].sort().join() !== [...selection.fixed].sort().join())
      adaptiveVsFixed.differentSets += 1;
    if (byAdaptive && !byHalf) fullVsHalf.onlyFirst += 1;
    if (byHalf && !byAdaptive) fullVsHalf.onlySecond += 1;
  }
  const arms = Object.fromEntries(
    rescueArms.map((arm) => [arm, { rescued: counts[arm], rate: failed.length ? counts[arm] / failed.length : null }]),
  ) as Record<RescueArm, ArmResult>;
  return {
    step,
    policyVersion: policy.version,
    groups: groups.length,
    allFailed: failed.length,
    infraErrors,
    rescueInfraErrors,
    arms,
    adaptiveVsFixed,
    fullVsHalf,
    cases: studied,
  };
}
