import { describeError, mean, sampleStdDev, type Task } from '@harness-s/core';
import { z } from 'zod';
import type { ChatFunction } from './chat.js';
import { LexicalIndex } from './lexical.js';
import { type HarnessProfile, outcomeRate, type ProfileSet, type TaskOutcome, taskFeatures } from './profiles.js';
import { signatureSimilarity } from './signatures.js';

/**
 * Why harnesses are ranked. `rescue`: the task failed every attempt under H0, so what counts is how
 * a harness does on the validation tasks H0 fails (each weighted by H0's failure rate on it, under
 * the policy the profiles were anchored on). `route`: how it does on the validation tasks alike.
 */
export type RankPurpose = 'rescue' | 'route';

/** What a ranker is asked: order these harnesses for this task, best first. */
export interface RankRequest {
  task: Task;
  profiles: ProfileSet;
  /** Candidate harness ids (H0 included for Rank-1 routing; left out for rescue). */
  candidates: readonly string[];
  /** Default `route`. */
  purpose?: RankPurpose;
  /**
   * For rescue, how the task's attempts under H0 failed: per failure signature, the failed
   * attempts that showed it (`failureSignatures`). Absent when the router was given no diagnosis.
   */
  failures?: Readonly<Record<string, number>>;
}

export interface Ranker {
  readonly id: string;
  /** The ranker's weight in the vote. */
  readonly weight: number;
  /** Candidate ids, best first (an array, or a promise of one). */
  rank(request: RankRequest): Promise<string[]> | string[];
  /** Whether it has anything to go on for this request; a ranker that has not sits the vote out. */
  appliesTo?(request: RankRequest): boolean;
}

const allProfiles = (profiles: ProfileSet): HarnessProfile[] => [profiles.h0, ...profiles.variants];
export const laplace = (successes: number, attempts: number): number => (successes + 1) / (attempts + 2);

/** Pseudo-attempts of the prior in `shrunkRate`: as much as one validation task profiled at k = 2. */
export const priorAttempts = 2;

/**
 * A harness's success rate on weighted evidence, shrunk toward its rate on the same tasks without
 * the weights. For rescue the weights are H0's failure rates: once training has made H0 solve most
 * validation tasks, the few it still fails carry little evidence (often no success at all), and an
 * estimate from them alone is noise. The prior, the harness's smoothed rate over all the tasks at
 * `base` weight, then decides; the more failure-weighted evidence there is, the more it counts.
 */
export function shrunkRate(
  evidence: ReadonlyArray<{
    outcome: TaskOutcome | undefined;
    base: number;
    weight: number;
    /** Counts already weighted (a profile's `rescueEvidence`): used instead of `outcome` at `weight`. */
    weighted?: TaskOutcome | undefined;
  }>,
) {
  let successes = 0;
  let attempts = 0;
  let baseSuccesses = 0;
  let baseAttempts = 0;
  for (const { outcome, base, weight, weighted } of evidence) {
    if (!outcome) continue;
    successes += weight * (weighted ?? outcome).successes;
    attempts += weight * (weighted ?? outcome).attempts;
    baseSuccesses += base * outcome.successes;
    baseAttempts += base * outcome.attempts;
  }
  const prior = laplace(baseSuccesses, baseAttempts);
  return (successes + priorAttempts * prior) / (attempts + priorAttempts);
}

/**
 * How much each validation task counts for a ranking: 1 each for routing; for rescue, H0's failure
 * rate on it, so that tasks H0 solves say nothing about rescuing a task H0 failed. Where H0 failed
 * none of the given tasks, they count alike (there is nothing to condition on).
 */
export function taskWeights(profiles: ProfileSet, taskIds: readonly string[], purpose: RankPurpose = 'route') {
  const weights = new Map(taskIds.map((id) => [id, 1]));
  if (!conditionsOnFailure(profiles, taskIds, purpose)) return weights;
  for (const id of taskIds) weights.set(id, 1 - outcomeRate(profiles.h0.outcomes[id]));
  return weights;
}

/** Whether a ranking over these validation tasks is conditioned on H0's failures (see `taskWeights`). */
function conditionsOnFailure(profiles: ProfileSet, taskIds: readonly string[], purpose: RankPurpose): boolean {
  return purpose === 'rescue' && taskIds.some((id) => outcomeRate(profiles.h0.outcomes[id]) < 1);
}

/**
 * One validation task's evidence about a harness for `shrunkRate`, at `scale` (its similarity;
 * 1 for a feature group). Conditioned on H0's failures (rescue), a profile's paired
 * `rescueEvidence` is read where it has the task; otherwise the outcomes at H0's failure weight.
 */
function evidenceItem(
  profile: HarnessProfile,
  taskId: string,
  scale: number,
  weights: ReadonlyMap<string, number>,
  conditioned: boolean,
) {
  const outcome = profile.outcomes[taskId];
  const paired = conditioned ? profile.rescueEvidence?.[taskId] : undefined;
  return paired
    ? { outcome, base: scale, weight: scale, weighted: paired }
    : { outcome, base: scale, weight: scale * (weights.get(taskId) ?? 1) };
}

/**
 * The validation tasks a task is compared with by its features: one group per feature it shares
 * with the validation set (category, difficulty, tags); every validation task when it shares none.
 */
export function featureGroups(task: Task, profiles: ProfileSet): string[][] {
  const groups = taskFeatures(task)
    .map((feature) => profiles.tasks.filter((item) => item.features.includes(feature)).map((item) => item.id))
    .filter((ids) => ids.length > 0);
  return groups.length > 0 ? groups : [profiles.tasks.map((item) => item.id)];
}

/**
 * Per feature group of the task (`featureGroups`), the paired differences of a harness's success
 * rate and H0's on each validation task of the group that both were run on; undefined for an
 * unknown harness.
 */
function pairedDifferences(task: Task, profiles: ProfileSet, harnessId: string): number[][] | undefined {
  const profile = allProfiles(profiles).find((item) => item.harnessId === harnessId);
  if (!profile) return undefined;
  return featureGroups(task, profiles).map((ids) =>
    ids.flatMap((id) => {
      const own = profile.outcomes[id];
      const h0 = profiles.h0.outcomes[id];
      if (!own || !h0 || own.attempts === 0 || h0.attempts === 0) return [];
      return [outcomeRate(own) - outcomeRate(h0)];
    }),
  );
}

/**
 * A harness's success rate minus H0's on the validation tasks that share the task's features,
 * paired (same tasks, same seeds), averaged over the feature groups.
 */
export function pairedGain(task: Task, profiles: ProfileSet, harnessId: string): number {
  const groups = pairedDifferences(task, profiles, harnessId);
  return groups ? mean(groups.map(mean)) : 0;
}

/**
 * `pairedGain` less one standard error: how far the gain stands above the noise of a few paired
 * validation tasks, what Rank-1 routing needs to see before it leaves H0 for a variant. A group's
 * standard error is the sample deviation of its differences over the square root of their count;
 * a group of fewer than two tasks has no spread to measure, so its error is 1, the largest a
 * difference of rates can be. The groups' errors combine as for a mean. The best of many variants
 * on a handful of tasks is often one that gained there by chance; a gain above its error is one
 * to act on.
 */
export function credibleGain(task: Task, profiles: ProfileSet, harnessId: string): number {
  const groups = pairedDifferences(task, profiles, harnessId);
  if (!groups) return 0;
  const variance = groups.reduce((sum, differences) => {
    const n = differences.length;
    return sum + (n < 2 ? 1 : sampleStdDev(differences) ** 2 / n);
  }, 0);
  return mean(groups.map(mean)) - Math.sqrt(variance) / groups.length;
}

/** Sorts candidates by score, best first; ties by id, so rankings repeat. */
function byScore(candidates: readonly string[], score: (id: string) => number): string[] {
  const scores = new Map(candidates.map((id) => [id, score(id)]));
  return [...candidates].sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || (a < b ? -1 : 1));
}

/**
 * Ranks by the profiles' statistics: a harness's smoothed success rate on the validation tasks
 * that share each of the task's features (category, difficulty, tags), averaged; its overall rate
 * when the task shares no feature with the validation set. For rescue, each validation task
 * counts by H0's failure rate on it (`taskWeights`).
 */
export class ProfileStatsRanker implements Ranker {
  readonly id = 'profile-stats';
  constructor(readonly weight = 1) {}

  async rank({ task, profiles, candidates, purpose }: RankRequest): Promise<string[]> {
    const byId = new Map(allProfiles(profiles).map((profile) => [profile.harnessId, profile]));
    const groups = featureGroups(task, profiles).map((ids) => ({
      ids,
      weights: taskWeights(profiles, ids, purpose),
      conditioned: conditionsOnFailure(profiles, ids, purpose ?? 'route'),
    }));
    const score = (id: string): number => {
      const profile = byId.get(id);
      if (!profile) return 0;
      const rateOver = ({ ids, weights, conditioned }: (typeof groups)[number]) =>
        shrunkRate(ids.map((taskId) => evidenceItem(profile, taskId, 1, weights, conditioned)));
      return groups.reduce((sum, group) => sum + rateOver(group), 0) / groups.length;
    };
    return byScore(candidates, score);
  }
}

/**
 * Scores candidates by their evidence on some validation tasks, each counted by its similarity to
 * the task at hand (the nearest fully, the others by how close they come) and, for rescue, by H0's
 * failures there.
 */
function rankByNeighbours(
  { profiles, candidates, purpose }: RankRequest,
  nearest: ReadonlyArray<{ id: string; similarity: number }>,
): string[] {
  const nearestIds = nearest.map((neighbour) => neighbour.id);
  const counts = taskWeights(profiles, nearestIds, purpose);
  const conditioned = conditionsOnFailure(profiles, nearestIds, purpose ?? 'route');
  const byId = new Map(allProfiles(profiles).map((profile) => [profile.harnessId, profile]));
  const closest = Math.max(1e-6, ...nearest.map((neighbour) => neighbour.similarity));
  const score = (id: string): number => {
    const profile = byId.get(id);
    if (!profile) return 0;
    return shrunkRate(
      nearest.map((neighbour) =>
        evidenceItem(profile, neighbour.id, (neighbour.similarity + 1e-6) / closest, counts, conditioned),
      ),
    );
  };
  return byScore(candidates, score);
}

/**
 * Ranks by outcomes on similar tasks: the nearest validation tasks by TF-IDF over the task text,
 * and each harness's success on them, weighted by similarity (and, for rescue, by H0's failure
 * rate on each neighbour).
 */
export class SimilarTaskRanker implements Ranker {
  readonly id = 'similar-tasks';
  private index: { profiles: ProfileSet; lexical: LexicalIndex } | undefined;

  constructor(
    readonly weight = 1,
    readonly neighbours = 5,
  ) {}

  async rank(request: RankRequest): Promise<string[]> {
    const { task, profiles } = request;
    if (this.index?.profiles !== profiles) this.index = { profiles, lexical: new LexicalIndex(profiles.tasks) };
    return rankByNeighbours(request, this.index.lexical.nearest(task.instruction, this.neighbours, task.id));
  }
}

/**
 * Ranks by outcomes on the validation tasks that H0 failed the same way: the task's failed
 * attempts and each validation task's failures under H0 are counted by failure signature (the
 * repair direction each failure shows), and the nearest tasks by cosine similarity of those counts
 * weigh each harness's rescue evidence, as `SimilarTaskRanker` weighs text neighbours. A task whose
 * answers came back in the wrong form is rescued by what rescued the validation tasks whose answers
 * did, whatever their wording or category. It sits the vote out unless the router was given a
 * diagnosis and some validation task failed under H0 the same way (rescue only).
 */
export class SimilarFailureRanker implements Ranker {
  readonly id = 'similar-failures';

  constructor(
    readonly weight = 1,
    readonly neighbours = 5,
  ) {}

  /** Whether some validation task failed under H0 the way this task's attempts did. */
  appliesTo(request: RankRequest): boolean {
    return this.nearest(request).length > 0;
  }

  async rank(request: RankRequest): Promise<string[]> {
    const nearest = this.nearest(request);
    return nearest.length > 0 ? rankByNeighbours(request, nearest) : [];
  }

  private nearest({ failures, profiles, task }: RankRequest) {
    return failures ? nearestByFailures(failures, profiles.tasks, this.neighbours, task.id) : [];
  }
}

/**
 * The `count` tasks most similar to `failures` by failure signature (any similarity above 0, `skip`
 * left out), and every task tied with the last of them: with few signatures many tasks fail
 * alike, and cutting among equals by id would be arbitrary.
 */
export function nearestByFailures(
  failures: Readonly<Record<string, number>>,
  tasks: ReadonlyArray<{ id: string; h0Failures?: Readonly<Record<string, number>> | undefined }>,
  count: number,
  skip?: string,
): Array<{ id: string; similarity: number }> {
  const similar = tasks
    .map((item) => ({ id: item.id, similarity: signatureSimilarity(failures, item.h0Failures) }))
    .filter((neighbour) => neighbour.similarity > 0 && neighbour.id !== skip)
    .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
  const cut = similar[count - 1]?.similarity;
  return cut === undefined ? similar : similar.filter((neighbour) => neighbour.similarity >= cut - 1e-12);
}

/** Signature counts as text, most frequent first: `answer-formatting: 8, error-recovery: 2`. */
const signatureText = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([signature, count]) => `${signature}: ${count}`)
    .join(', ');

/** The answer an LLM ranker must give. */
export const LlmRanking = z.object({ ranking: z.array(z.string()).min(1) });

/** Extracts the first JSON object in a model's reply. */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('no JSON object in the reply');
  return JSON.parse(text.slice(start, end + 1));
}

export interface LlmRankerOptions {
  id: string;
  chat: ChatFunction;
  weight?: number;
  /** Used when the model's answer is invalid; the profile-statistics ranker by default. */
  fallback?: Ranker;
  /** Told about every invalid answer (for the run log). */
  onInvalid?: (reason: string, reply: string) => void;
}

/**
 * An LLM ranker: the model sees the candidates' profiles, the task and outcomes on similar tasks,
 * and answers `{"ranking": [ids...]}`. An answer that is not valid JSON, names unknown harnesses
 * or misses some falls back (to the fallback ranker's order for the missing part) and is logged.
 */
export class LlmRanker implements Ranker {
  readonly id: string;
  readonly weight: number;
  private readonly similar = new SimilarTaskRanker();
  private readonly fallback: Ranker;

  constructor(private readonly options: LlmRankerOptions) {
    this.id = options.id;
    this.weight = options.weight ?? 1;
    this.fallback = options.fallback ?? new ProfileStatsRanker();
  }

  async rank(request: RankRequest): Promise<string[]> {
    const { task, profiles, candidates } = request;
    const byId = new Map(allProfiles(profiles).map((profile) => [profile.harnessId, profile]));
    const similar = (await this.similar.rank(request)).slice(0, 3);
    const prompt = [
      'You route an agent task to the harness (prompt, tools and rules around the model) most likely to solve it.',
      `Task: ${task.instruction}`,
      ...(request.purpose === 'rescue'
        ? [
            'Every attempt at this task under the base harness H0 failed: rank the harnesses most likely to solve it where H0 fails.',
          ]
        : []),
      ...(request.failures && Object.keys(request.failures).length > 0
        ? [`How those attempts failed (repair direction: attempts): ${signatureText(request.failures)}`]
        : []),
      `Task features: ${taskFeatures(task).join(', ') || 'none'}`,
      'Candidates (id: profile):',
      ...candidates.map((id) => `- ${id}: ${byId.get(id)?.summary ?? 'no profile'}`),
      `On the most similar validation tasks, the best harnesses were: ${similar.join(', ')}.`,
      'Answer with JSON only: {"ranking": ["best-id", "second-id", ...]} listing every candidate id once.',
    ].join('\n');
    let reply = '';
    try {
      reply = await this.options.chat([{ role: 'user', content: prompt }]);
      const parsed = LlmRanking.parse(firstJsonObject(reply));
      const known = new Set(candidates);
      const unknown = parsed.ranking.filter((id) => !known.has(id));
      if (unknown.length) throw new Error(`unknown harness ids ${unknown.join(', ')}`);
      const ranked = [...new Set(parsed.ranking)];
      if (ranked.length < candidates.length) {
        this.options.onInvalid?.(
          `ranking misses ${candidates.length - ranked.length} candidates; appended in fallback order`,
          reply,
        );
        const rest = (await this.fallback.rank(request)).filter((id) => !ranked.includes(id));
        return [...ranked, ...rest];
      }
      return ranked;
    } catch (error) {
      this.options.onInvalid?.(describeError(error), reply);
      return this.fallback.rank(request);
    }
  }
}
