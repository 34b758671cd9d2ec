import {
  type AttemptRunner,
  countOf,
  type Environment,
  evaluate,
  type Harness,
  InfrastructureError,
  mapConcurrent,
  type Policy,
  type Task,
  type TaskResult,
} from '@harness-s/core';
import { z } from 'zod';
import { addSignatures, type Diagnose, failureSignatures } from './signatures.js';

/** Attempts and successes of one harness on one validation task. */
export const TaskOutcome = z.object({
  /** Counts; fractional where older anchors' evidence is carried at a discount. */
  attempts: z.number().nonnegative(),
  successes: z.number().nonnegative(),
});
export type TaskOutcome = z.infer<typeof TaskOutcome>;

/** A rate by feature value: e.g. category=UPDATE -> {tasks, h0Rate, rate}. */
export const FeatureRate = z.object({ tasks: z.number().int(), h0Rate: z.number(), rate: z.number() });

/**
 * A harness's behaviour profile, from paired runs with H0 over the validation split: where it
 * helps (solves what H0 failed), where it hurts (fails what H0 solved), its rates by task feature.
 */
export const HarnessProfile = z.object({
  harnessId: z.string(),
  parent: z.string().nullable(),
  direction: z.string().nullable(),
  description: z.string(),
  /** Per validation task id. */
  outcomes: z.record(z.string(), TaskOutcome),
  successRate: z.number(),
  /** Tasks it solved at least once where H0 never did. */
  helps: z.array(z.string()),
  /** Tasks H0 solved at least once where it never did. */
  hurts: z.array(z.string()),
  /** `feature=value` -> rates, for category, difficulty and tags. */
  byFeature: z.record(z.string(), FeatureRate),
  /**
   * What rescue ranking reads, per validation task: the harness's counts weighted by H0's failure
   * rate on the task at the anchor that recorded them, summed over anchors (earlier ones at the
   * carry-over discount). Each anchor's counts stay paired with its own H0: once the policy has
   * learned a task, a fresh anchor where every harness solves it adds nothing here, and what the
   * earlier anchors saw while H0 failed it still counts. Profiles written before it existed have
   * none; rankers then weight `outcomes` by H0's (carried-over) failure rates.
   */
  rescueEvidence: z.record(z.string(), TaskOutcome).optional(),
  /** A short readable summary (written by an LLM when one is configured, else from a template). */
  summary: z.string(),
  /** Who wrote the summary: `template`, or `llm:<model>`. */
  summaryBy: z.string().default('template'),
});
export type HarnessProfile = z.infer<typeof HarnessProfile>;

/** What the rankers know of a validation task. */
export const ProfiledTask = z.object({
  id: z.string(),
  text: z.string(),
  features: z.array(z.string()),
  /**
   * How H0's attempts on it failed: per failure signature (a repair direction, from the
   * `diagnose` profiling was given), the failed attempts that showed it, summed over anchors
   * (earlier ones at the carry-over discount, so what was seen while H0 failed the task still
   * counts once the policy has learned it). Absent when profiling diagnosed nothing.
   */
  h0Failures: z.record(z.string(), z.number().nonnegative()).optional(),
});
export type ProfiledTask = z.infer<typeof ProfiledTask>;

/** Profiles of H0 and every variant, anchored on one policy version. */
export const ProfileSet = z.object({
  schemaVersion: z.literal(1),
  env: z.string(),
  policyVersion: z.string(),
  /** The training step the policy came from (0 before training). */
  anchoredAtStep: z.number().int().nonnegative(),
  k: z.number().int().positive(),
  seed: z.number().int(),
  tasks: z.array(ProfiledTask),
  h0: HarnessProfile,
  variants: z.array(HarnessProfile),
  createdAt: z.string(),
});
export type ProfileSet = z.infer<typeof ProfileSet>;

/** The features a task is profiled and ranked by. */
export function taskFeatures(task: Task): string[] {
  return [
    ...(task.category ? [`category=${task.category}`] : []),
    ...(task.difficulty ? [`difficulty=${task.difficulty}`] : []),
    ...task.tags.map((tag) => `tag=${tag}`),
  ];
}

/** Share of a task's attempts that succeeded (0 when it has none recorded). */
export const outcomeRate = (outcome: TaskOutcome | undefined): number =>
  outcome && outcome.attempts > 0 ? outcome.successes / outcome.attempts : 0;

/** A template summary of a profile, used when no LLM writes one. */
export function templateSummary(profile: Omit<HarnessProfile, 'summary' | 'summaryBy'>, h0Rate: number): string {
  // Ahead as printed: a lead lost to rounding (or to the order rates were summed in) is a tie.
  const percent = (rate: number) => Math.round(rate * 100);
  const strongest = Object.entries(profile.byFeature)
    .filter(([, value]) => value.tasks >= 2 && percent(value.rate) > percent(value.h0Rate))
    .sort(([, a], [, b]) => b.rate - b.h0Rate - (a.rate - a.h0Rate))
    .slice(0, 3)
    .map(([feature, value]) => `${feature} (${percent(value.rate)}% vs H0 ${percent(value.h0Rate)}%)`);
  const direction = profile.direction ? ` for ${profile.direction}` : '';
  return (
    `${profile.harnessId}${direction}: success ${(profile.successRate * 100).toFixed(0)}% vs H0 ${(h0Rate * 100).toFixed(0)}%; ` +
    `helps on ${countOf(profile.helps.length, 'task')} H0 fails, hurts on ${countOf(profile.hurts.length, 'task')} H0 solves` +
    (strongest.length ? `; strongest on ${strongest.join(', ')}` : '')
  );
}

/** Builds a profile from per-task outcomes, paired with H0's. */
export function profileFrom(
  harness: Harness,
  outcomes: Record<string, TaskOutcome>,
  h0Outcomes: Record<string, TaskOutcome>,
  tasks: readonly Task[],
): HarnessProfile {
  const { id, parent, direction, description } = harness.spec;
  return deriveProfile(
    { harnessId: id, parent, direction, description },
    outcomes,
    h0Outcomes,
    tasks.map((task) => ({ id: task.id, features: taskFeatures(task) })),
  );
}

type ProfileIdentity = Pick<HarnessProfile, 'harnessId' | 'parent' | 'direction' | 'description'>;

/** A profile's derived parts (rates, helps, hurts, by feature, summary) from its outcomes. */
function deriveProfile(
  identity: ProfileIdentity,
  outcomes: Record<string, TaskOutcome>,
  h0Outcomes: Record<string, TaskOutcome>,
  tasks: ReadonlyArray<{ id: string; features: readonly string[] }>,
  rescueEvidence: Record<string, TaskOutcome> = failureWeighted(outcomes, h0Outcomes, tasks),
): HarnessProfile {
  const byFeature: Record<string, { tasks: number; h0Sum: number; sum: number }> = {};
  for (const task of tasks) {
    for (const feature of task.features) {
      const entry = byFeature[feature] ?? { tasks: 0, h0Sum: 0, sum: 0 };
      byFeature[feature] = entry;
      entry.tasks += 1;
      entry.h0Sum += outcomeRate(h0Outcomes[task.id]);
      entry.sum += outcomeRate(outcomes[task.id]);
    }
  }
  const solved = (outcome: TaskOutcome | undefined) => (outcome?.successes ?? 0) > 0;
  const partial = {
    ...identity,
    outcomes,
    rescueEvidence,
    successRate: tasks.length ? tasks.reduce((sum, task) => sum + outcomeRate(outcomes[task.id]), 0) / tasks.length : 0,
    helps: tasks.filter((task) => solved(outcomes[task.id]) && !solved(h0Outcomes[task.id])).map((task) => task.id),
    hurts: tasks.filter((task) => !solved(outcomes[task.id]) && solved(h0Outcomes[task.id])).map((task) => task.id),
    byFeature: Object.fromEntries(
      Object.entries(byFeature).map(([feature, entry]) => [
        feature,
        { tasks: entry.tasks, h0Rate: entry.h0Sum / entry.tasks, rate: entry.sum / entry.tasks },
      ]),
    ),
  };
  const h0Rate = tasks.length
    ? tasks.reduce((sum, task) => sum + outcomeRate(h0Outcomes[task.id]), 0) / tasks.length
    : 0;
  return { ...partial, summary: templateSummary(partial, h0Rate), summaryBy: 'template' };
}

/**
 * Fresh profiles with the evidence of earlier anchors carried over at a discount: every count of
 * `previous` is multiplied by `discount` and added to `fresh`'s, and the rates, helps, hurts and
 * summaries are derived again. The policy changes slowly, and once it solves most validation
 * tasks a fresh anchor alone barely tells the variants apart on the hard ones that remain; what
 * earlier anchors saw there still counts, less with every anchor. Only `fresh`'s validation tasks
 * are kept: earlier evidence on tasks the fresh anchor did not run (a sample of them) is stale
 * there, and would keep its full weight in every rate. Discount 0 is `fresh` itself.
 */
export function carryOverProfiles(previous: ProfileSet, fresh: ProfileSet, discount: number): ProfileSet {
  if (!(discount >= 0 && discount <= 1)) throw new RangeError(`discount must be in [0, 1], got ${discount}`);
  if (discount === 0 || previous.env !== fresh.env) return fresh;
  // Per fresh validation task: the fresh count plus the earlier one at the discount.
  const combine = (
    now: Record<string, TaskOutcome>,
    before: Record<string, TaskOutcome> | undefined,
  ): Record<string, TaskOutcome> =>
    Object.fromEntries(
      fresh.tasks.map((task) => [
        task.id,
        {
          attempts: (now[task.id]?.attempts ?? 0) + discount * (before?.[task.id]?.attempts ?? 0),
          successes: (now[task.id]?.successes ?? 0) + discount * (before?.[task.id]?.successes ?? 0),
        },
      ]),
    );
  const earlierById = new Map([previous.h0, ...previous.variants].map((profile) => [profile.harnessId, profile]));
  const h0Outcomes = combine(fresh.h0.outcomes, earlierById.get(fresh.h0.harnessId)?.outcomes);
  // Rescue evidence: each anchor's counts weighted by its own H0's failures, earlier ones discounted.
  const evidenceOf = (profile: HarnessProfile, h0: HarnessProfile, tasks: ProfileSet['tasks']) =>
    profile.rescueEvidence ?? failureWeighted(profile.outcomes, h0.outcomes, tasks);
  const rebuild = (profile: HarnessProfile) => {
    const { harnessId, parent, direction, description } = profile;
    const earlier = earlierById.get(harnessId);
    return deriveProfile(
      { harnessId, parent, direction, description },
      combine(profile.outcomes, earlier?.outcomes),
      h0Outcomes,
      fresh.tasks,
      combine(
        evidenceOf(profile, fresh.h0, fresh.tasks),
        earlier ? evidenceOf(earlier, previous.h0, previous.tasks) : undefined,
      ),
    );
  };
  const earlierTasks = new Map(previous.tasks.map((task) => [task.id, task]));
  const tasks = fresh.tasks.map((task) => {
    const failures = addSignatures(task.h0Failures, earlierTasks.get(task.id)?.h0Failures, discount);
    return failures ? { ...task, h0Failures: failures } : task;
  });
  return { ...fresh, tasks, h0: rebuild(fresh.h0), variants: fresh.variants.map(rebuild) };
}

/** A harness's counts on each task times H0's failure rate there (on the same anchor). */
function failureWeighted(
  outcomes: Record<string, TaskOutcome>,
  h0Outcomes: Record<string, TaskOutcome>,
  tasks: ReadonlyArray<{ id: string }>,
): Record<string, TaskOutcome> {
  return Object.fromEntries(
    tasks.map((task) => {
      const outcome = outcomes[task.id] ?? { attempts: 0, successes: 0 };
      const failure = 1 - outcomeRate(h0Outcomes[task.id]);
      return [task.id, { attempts: failure * outcome.attempts, successes: failure * outcome.successes }];
    }),
  );
}

export interface BuildProfilesOptions<T extends Task> {
  environment: Environment<T>;
  /** The validation tasks. */
  tasks: readonly T[];
  h0: Harness;
  pool: readonly Harness[];
  /** Frozen for the whole profiling. */
  policy: Policy;
  k: number;
  seed: number;
  concurrency: number;
  /** Where the attempts run (a run's workers); in this process when absent. */
  runner?: AttemptRunner;
  step?: number;
  /** Called as each harness finishes, for progress. */
  onHarness?: (harnessId: string, done: number, total: number) => void;
  /** Stops the profiling (its attempts end as interrupted, and it rejects). */
  signal?: AbortSignal;
  /** Reads H0's failed attempts: each validation task's `h0Failures`, for the similar-failure ranker. */
  diagnose?: Diagnose;
}

const outcomesOf = (perTask: readonly TaskResult[]): Record<string, TaskOutcome> =>
  Object.fromEntries(perTask.map((result) => [result.id, { attempts: result.attempts, successes: result.successes }]));

/**
 * Runs H0 and every variant over the validation tasks with the policy frozen, on paired seeds
 * (every harness meets the same seeds on the same tasks), and builds their profiles.
 */
export async function buildProfiles<T extends Task>(options: BuildProfilesOptions<T>): Promise<ProfileSet> {
  const harnesses = [options.h0, ...options.pool];
  let done = 0;
  // In this process, harnesses one after another, each with the full concurrency, so progress is
  // meaningful; on a run's workers, all at once, so they are never idle between two harnesses, and
  // the first that fails stops the others.
  const stop = new AbortController();
  const signal = options.runner
    ? AbortSignal.any([stop.signal, ...(options.signal ? [options.signal] : [])])
    : options.signal;
  const results = await mapConcurrent(harnesses, options.runner ? harnesses.length : 1, async (harness) => {
    const evaluated = evaluate({
      environment: options.environment,
      taskSet: { tasks: [...options.tasks], unloadable: [] },
      split: 'validation',
      harness,
      policy: options.policy,
      k: options.k,
      seed: options.seed,
      pairedSeeds: true,
      concurrency: options.concurrency,
      runId: `profile-${harness.spec.id}`,
      ...(options.runner
        ? { runner: options.runner, attemptIdPrefix: `profile-${options.step ?? 0}-${harness.spec.id}:` }
        : {}),
      ...(signal ? { signal } : {}),
    });
    const { summary, trajectories } = await evaluated.catch((error: unknown) => {
      stop.abort(error);
      throw error;
    });
    // Profiles anchored where a harness could not run at all (a model server down, or gone part way)
    // would say nothing of it, and a router would trust them: they are not made, and a resumed run
    // anchors them again.
    if (summary.tasks > 0 && summary.unscoredTasks.length === summary.tasks) {
      const first = trajectories.find((trajectory) => trajectory.infraErrors.length > 0)?.infraErrors.at(-1)?.message;
      const error = new InfrastructureError(
        `profiling ${harness.spec.id}: no attempt could be scored, every try ended in an infrastructure error${first ? ` (the first: ${first})` : ''}`,
        { code: 'every-attempt-lost' },
      );
      stop.abort(error);
      throw error;
    }
    done += 1;
    options.onHarness?.(harness.spec.id, done, harnesses.length);
    return { outcomes: outcomesOf(summary.perTask), trajectories: harness === options.h0 ? trajectories : [] };
  });
  const [h0Result, ...variantResults] = results;
  const h0Outcomes = h0Result?.outcomes ?? {};
  const variantOutcomes = variantResults.map((result) => result.outcomes);
  const signatures = options.diagnose
    ? await failureSignatures(h0Result?.trajectories ?? [], options.diagnose)
    : undefined;
  return {
    schemaVersion: 1,
    env: options.environment.id,
    policyVersion: options.policy.version,
    anchoredAtStep: options.step ?? 0,
    k: options.k,
    seed: options.seed,
    tasks: options.tasks.map((task) => ({
      id: task.id,
      text: task.instruction,
      features: taskFeatures(task),
      ...(signatures ? { h0Failures: signatures.get(task.id) ?? {} } : {}),
    })),
    h0: profileFrom(options.h0, h0Outcomes, h0Outcomes, options.tasks),
    variants: options.pool.map((harness, index) =>
      profileFrom(harness, variantOutcomes[index] ?? {}, h0Outcomes, options.tasks),
    ),
    createdAt: new Date().toISOString(),
  };
}
