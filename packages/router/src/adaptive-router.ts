import {
  ConfigError,
  failureOf,
  formatZodError,
  type RescueReport,
  type RescueRequest,
  type RescueRouter,
  type RouterStepContext,
  type Task,
} from '@harness-s/core';
import { z } from 'zod';
import { checkProfileTaskCount, chooseProfileTasks } from './profile-tasks.js';
import { buildProfiles, carryOverProfiles, ProfileSet, TaskOutcome } from './profiles.js';
import {
  credibleGain,
  laplace,
  ProfileStatsRanker,
  type Ranker,
  type RankPurpose,
  type RankRequest,
  SimilarFailureRanker,
  SimilarTaskRanker,
} from './rankers.js';
import { type Diagnose, failureSignatures, sumSignatures } from './signatures.js';
import { topK, voteRankings } from './voting.js';

/** How much of the earlier anchors' evidence a re-anchoring keeps unless told otherwise. */
export const defaultCarryOver = 0.5;

/** Steps between re-anchorings of the adaptive router's profiles when none is set. */
export const defaultReanchorEvery = 4;

export interface AdaptiveRouterOptions {
  /** Profiles to start from; when absent they are anchored on the policy before the first step. */
  profiles?: ProfileSet;
  /**
   * Default: the profile-statistics and the similar-task rankers, weight 1 each, and with
   * `diagnose` the similar-failure ranker.
   */
  rankers?: Ranker[];
  /**
   * Reads a failed attempt's failure signatures. Given, (re-)anchoring records how H0 failed each
   * validation task, and a rescue request's failed attempts are read the same way, for the
   * similar-failure ranker.
   */
  diagnose?: Diagnose;
  /** Votes fall off as decay^rank (default 0.7). */
  decay?: number;
  /** `adaptive` re-anchors profiles every `reanchorEvery` steps; `fixed` keeps the first ones. */
  mode?: 'adaptive' | 'fixed';
  reanchorEvery?: number;
  /** Attempts per validation task when (re-)anchoring (default 2). */
  profileK?: number;
  /**
   * Anchor on this many validation tasks instead of all of them (`chooseProfileTasks`: the same
   * sample at every anchor, covering the tasks' features), for a policy whose episodes are costly.
   */
  profileTasks?: number;
  /**
   * How much of the earlier anchors' evidence a re-anchoring keeps (default 0.5): their counts are
   * carried over at this discount (see `carryOverProfiles`); 0 keeps only the fresh anchor.
   */
  carryOver?: number;
  /**
   * Adaptive mode: remember what each rescue gave (`observe`), and when a task fails again put the
   * variants that solved it first and the ones that only failed it last (default off). Meant for
   * policies that fail a task the same way under the same harness; with the simulated policy,
   * whose attempts are independent draws, moving away from a failed set lowered rescue success.
   */
  rescueMemory?: boolean;
  /** Rewrites freshly anchored profiles before use, e.g. `summarizeProfiles` with a chat model. */
  summarize?: (profiles: ProfileSet) => Promise<ProfileSet>;
  /** Told when profiles are (re-)anchored. */
  onAnchor?: (profiles: ProfileSet) => void;
  /** Told as each harness of a (re-)anchoring finishes its validation tasks, for progress. */
  onProfiling?: (progress: ProfilingProgress) => void;
}

/** A (re-)anchoring under way: `done` of `total` harnesses have run their `tasks` validation tasks. */
export interface ProfilingProgress {
  harnessId: string;
  done: number;
  total: number;
  tasks: number;
  /** The training step of the policy being profiled (0 before training). */
  step: number;
}

/**
 * Rescue memory: a task rescued before is rescued in the light of what that gave. The variants that
 * solved it come first (by smoothed success rate), then the ones not yet tried on it in the vote's
 * order, and the ones that only failed it last. Where a policy fails a task the same way under the
 * same harness, repeating a rescue set that failed would mostly fail again.
 */
export function reorderByRescues(order: readonly string[], seen: Readonly<Record<string, TaskOutcome>> | undefined) {
  if (!seen) return [...order];
  const attempts = (id: string) => seen[id]?.attempts ?? 0;
  const successes = (id: string) => seen[id]?.successes ?? 0;
  const solved = order
    .filter((id) => successes(id) > 0)
    .sort((a, b) => laplace(successes(b), attempts(b)) - laplace(successes(a), attempts(a)));
  return [
    ...solved,
    ...order.filter((id) => attempts(id) === 0),
    ...order.filter((id) => attempts(id) > 0 && successes(id) === 0),
  ];
}

const RouterState = z.object({
  profiles: ProfileSet.nullable(),
  anchors: z.number().int(),
  // Checkpoints written before rescue memory existed read none.
  rescues: z.record(z.string(), z.record(z.string(), TaskOutcome)).default({}),
  /** The step whose beforeStep last anchored profiles (absent in older checkpoints). */
  anchoredAt: z.number().int().optional(),
});

/**
 * A ranker's ranking, or its failure named by ranker and task (an error of the run's own kinds, an
 * interrupt for one, passes as it is).
 */
async function rankBy(ranker: Ranker, request: RankRequest): Promise<string[]> {
  try {
    return await ranker.rank(request);
  } catch (error) {
    throw failureOf(`ranker ${ranker.id} failed on task ${request.task.id}`, error);
  }
}

/**
 * The adaptive harness router: for a task whose H0 group failed, several rankers order the
 * variants from the behaviour profiles and similar-task outcomes, a weighted vote with decaying
 * rank weights combines them, and the top-K distinct variants other than H0 form the rescue set.
 * Profiles are re-anchored on the current policy every N steps (adaptive) or kept (fixed).
 */
export class AdaptiveRouter implements RescueRouter {
  readonly id: string;
  private profiles: ProfileSet | null;
  private anchors = 0;
  /** The step whose beforeStep last anchored: a run resumed from the checkpoint after it does not anchor again. */
  private anchoredAt: number | undefined;
  private rescues: Record<string, Record<string, TaskOutcome>> = {};
  readonly rankers: Ranker[];
  readonly decay: number;
  readonly mode: 'adaptive' | 'fixed';
  readonly reanchorEvery: number;
  readonly carryOver: number;

  constructor(private readonly options: AdaptiveRouterOptions = {}) {
    this.profiles = options.profiles ?? null;
    this.rankers = options.rankers ?? [
      new ProfileStatsRanker(),
      new SimilarTaskRanker(),
      ...(options.diagnose ? [new SimilarFailureRanker()] : []),
    ];
    this.decay = options.decay ?? 0.7;
    if (!(this.decay > 0 && this.decay <= 1))
      throw new ConfigError(`decay must be in (0, 1], got ${this.decay}`, { code: 'bad-router-config' });
    for (const ranker of this.rankers)
      if (!(Number.isFinite(ranker.weight) && ranker.weight >= 0))
        throw new ConfigError(
          `ranker ${ranker.id}: weight must be a finite number of at least 0, got ${ranker.weight}`,
          {
            code: 'bad-router-config',
          },
        );
    this.mode = options.mode ?? 'adaptive';
    this.reanchorEvery = options.reanchorEvery ?? defaultReanchorEvery;
    if (!Number.isInteger(this.reanchorEvery) || this.reanchorEvery < 1) {
      throw new ConfigError(`reanchorEvery must be a positive integer, got ${this.reanchorEvery}`, {
        code: 'bad-router-config',
      });
    }
    this.carryOver = options.carryOver ?? defaultCarryOver;
    if (!(this.carryOver >= 0 && this.carryOver <= 1)) {
      throw new ConfigError(`carryOver must be in [0, 1], got ${this.carryOver}`, { code: 'bad-router-config' });
    }
    if (options.profileTasks !== undefined) checkProfileTaskCount(options.profileTasks);
    this.id = this.mode;
  }

  /** What a run without validation tasks can do instead: start from stored profiles, kept fixed. */
  readonly withoutValidationTasks =
    "start from profiles with a router that keeps them (train --profiles DIR --router fixed; in the library, new AdaptiveRouter({ profiles, mode: 'fixed' }))";

  /**
   * Whether a run of `steps` steps anchors profiles on the validation tasks: before the first step
   * without profiles, and when re-anchoring (before step reanchorEvery + 1, if the run gets there).
   */
  needsValidationTasks(steps: number): boolean {
    return this.profiles === null || (this.mode === 'adaptive' && steps > this.reanchorEvery);
  }

  get currentProfiles(): ProfileSet | null {
    return this.profiles;
  }

  /** What the rescues observed so far gave, per task and harness (with `rescueMemory` only). */
  get rescueHistory(): Readonly<Record<string, Readonly<Record<string, TaskOutcome>>>> {
    return this.rescues;
  }

  /** With `rescueMemory` (adaptive mode): remembers what each variant did on the rescued task. */
  observe(report: RescueReport): void {
    if (this.mode !== 'adaptive' || !this.options.rescueMemory) return;
    const seen = this.rescues[report.task.id] ?? {};
    this.rescues[report.task.id] = seen;
    for (const { harnessId, attempts, successes } of report.outcomes) {
      const outcome = seen[harnessId] ?? { attempts: 0, successes: 0 };
      seen[harnessId] = { attempts: outcome.attempts + attempts, successes: outcome.successes + successes };
    }
  }

  async beforeStep(context: RouterStepContext): Promise<boolean> {
    const due =
      this.profiles === null ||
      (this.mode === 'adaptive' &&
        (context.step - 1) % this.reanchorEvery === 0 &&
        context.step > 1 &&
        this.anchoredAt !== context.step);
    if (!due) return false;
    if (context.validationTasks.length === 0) {
      throw new ConfigError('the adaptive router needs validation tasks to anchor its profiles', {
        code: 'no-validation-tasks',
      });
    }
    const tasks = this.options.profileTasks
      ? chooseProfileTasks(context.validationTasks, this.options.profileTasks, context.seed)
      : context.validationTasks;
    const onProfiling = this.options.onProfiling;
    const fresh = await buildProfiles({
      environment: context.environment,
      tasks,
      h0: context.h0,
      pool: context.pool,
      policy: context.policy,
      k: this.options.profileK ?? 2,
      seed: context.seed + context.step,
      concurrency: context.concurrency,
      ...(context.runner ? { runner: context.runner } : {}),
      step: context.step - 1,
      ...(onProfiling
        ? {
            onHarness: (harnessId: string, done: number, total: number) =>
              onProfiling({ harnessId, done, total, tasks: tasks.length, step: context.step - 1 }),
          }
        : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      ...(this.options.diagnose ? { diagnose: this.options.diagnose } : {}),
    });
    const profiles = this.profiles ? carryOverProfiles(this.profiles, fresh, this.carryOver) : fresh;
    this.profiles = this.options.summarize ? await this.options.summarize(profiles) : profiles;
    this.anchors += 1;
    this.anchoredAt = context.step;
    this.options.onAnchor?.(this.profiles);
    return true;
  }

  /** Every candidate for the task (H0 and the variants), best first, by the weighted vote. */
  async order(
    task: Task,
    candidates?: readonly string[],
    purpose: RankPurpose = 'route',
    failures?: Readonly<Record<string, number>>,
  ): Promise<string[]> {
    const profiles = this.profiles;
    if (!profiles) throw new ConfigError('the router has no profiles yet', { code: 'no-profiles' });
    const all = candidates ?? [profiles.h0.harnessId, ...profiles.variants.map((profile) => profile.harnessId)];
    const request = { task, profiles, candidates: all, purpose, ...(failures ? { failures } : {}) };
    const rankings = await Promise.all(
      this.rankers
        .filter((ranker) => ranker.appliesTo?.(request) ?? true)
        .map(async (ranker) => ({
          rankerId: ranker.id,
          weight: ranker.weight,
          ranking: await rankBy(ranker, request),
        })),
    );
    return voteRankings(rankings, all, this.decay).order;
  }

  /**
   * Rank-1 routing: the single top choice for a task, which may be H0. The vote orders H0 and the
   * variants; a variant is taken over H0 only when its profile shows it doing better than H0 on
   * the validation tasks like this one by more than the noise of those few tasks (`credibleGain`
   * > 0), so a variant that merely ties H0 there, gains by chance, or wins the vote by helping
   * elsewhere, does not replace it. `candidates` limits the choice (the
   * harnesses actually at hand); H0 is always one.
   */
  async topChoice(task: Task, candidates?: readonly string[]): Promise<string> {
    const profiles = this.profiles;
    if (!profiles) throw new ConfigError('the router has no profiles yet', { code: 'no-profiles' });
    const h0 = profiles.h0.harnessId;
    const order = await this.order(task, candidates ? [...new Set([h0, ...candidates])] : undefined);
    return order.find((id) => id === h0 || credibleGain(task, profiles, id) > 0) ?? h0;
  }

  async select(request: RescueRequest): Promise<string[]> {
    const diagnose = this.options.diagnose;
    const failures =
      diagnose && request.failures
        ? sumSignatures((await failureSignatures(request.failures, diagnose)).values())
        : undefined;
    return this.rescueSet(request, failures);
  }

  /**
   * The rescue set for a request whose failed attempts are already read: `failures` counts them by
   * failure signature (`failureSignatures`), as `select` does with the router's `diagnose`.
   */
  async rescueSet(
    request: Omit<RescueRequest, 'failures'>,
    failures?: Readonly<Record<string, number>>,
  ): Promise<string[]> {
    const profiles = this.profiles;
    if (!profiles) throw new ConfigError('the router has no profiles yet', { code: 'no-profiles' });
    const poolIds = new Set(request.pool.map((spec) => spec.id));
    const candidates = profiles.variants.map((profile) => profile.harnessId).filter((id) => poolIds.has(id));
    // Pool members without a profile (added after anchoring) rank last, in id order.
    const unprofiled = [...poolIds].filter((id) => !candidates.includes(id)).sort();
    const order = [...(await this.order(request.task, candidates, 'rescue', failures)), ...unprofiled];
    return topK(reorderByRescues(order, this.rescues[request.task.id]), request.count, profiles.h0.harnessId);
  }

  state(): unknown {
    return {
      profiles: this.profiles,
      anchors: this.anchors,
      rescues: this.rescues,
      ...(this.anchoredAt === undefined ? {} : { anchoredAt: this.anchoredAt }),
    };
  }

  restore(state: unknown): void {
    const parsed = RouterState.safeParse(state);
    if (!parsed.success)
      throw new ConfigError(`checkpoint router state: ${formatZodError(parsed.error)}`, { code: 'bad-checkpoint' });
    this.profiles = parsed.data.profiles;
    this.anchors = parsed.data.anchors;
    this.rescues = parsed.data.rescues;
    this.anchoredAt = parsed.data.anchoredAt;
  }
}
