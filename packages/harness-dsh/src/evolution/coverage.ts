import { z } from 'zod';

/**
 * When a task counts as solved by a harness from its k paired attempts:
 * - `majority`: in at least half of the attempts (Avg@k >= 0.5). The default: with a stochastic
 *   policy "at least once in k" saturates (H0 already solves about 90% of DBBench dev at least once
 *   in 3 attempts), which hides both the gains and the losses of a variant.
 * - `any`: in at least one attempt (the Pass@k view, as the rescue loop sees a group).
 */
export const SolvedRule = z.enum(['majority', 'any']);
export type SolvedRule = z.infer<typeof SolvedRule>;

/** A task's attempt counts under one harness. */
export interface TaskOutcomeCount {
  id: string;
  attempts: number;
  successes: number;
}

/** The ids of the tasks solved under a rule. */
export function solvedTasks(perTask: readonly TaskOutcomeCount[], rule: SolvedRule): Set<string> {
  const solved = perTask.filter((task) =>
    rule === 'any' ? task.successes > 0 : task.attempts > 0 && task.successes * 2 >= task.attempts,
  );
  return new Set(solved.map((task) => task.id));
}

/** The union of solved sets. */
export function unionOf(sets: Iterable<ReadonlySet<string>>): Set<string> {
  const union = new Set<string>();
  for (const set of sets) for (const id of set) union.add(id);
  return union;
}

/** A candidate parent: its id and the validation tasks it solves. */
export interface CoverageCandidate {
  id: string;
  solved: ReadonlySet<string>;
}

/** A chosen set of parents and the validation tasks they solve together. */
export interface ParentSelection {
  ids: string[];
  covered: number;
  method: 'exhaustive' | 'greedy';
}

function binomial(n: number, k: number): number {
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return Math.round(result);
}

/** Orders candidates for ties: larger own coverage first, then id. */
const byPreference = (a: CoverageCandidate, b: CoverageCandidate) =>
  b.solved.size - a.solved.size || a.id.localeCompare(b.id);

/**
 * The best set of at most `count` candidates by exhaustive search: maximal joint coverage; ties
 * broken by the larger sum of own coverages, then by the earlier ids in preference order.
 */
export function exhaustiveSelection(candidates: readonly CoverageCandidate[], count: number): ParentSelection {
  const ordered = [...candidates].sort(byPreference);
  const size = Math.min(count, ordered.length);
  let best: { indexes: number[]; covered: number; own: number } | null = null;
  const indexes: number[] = [];
  const visit = (start: number) => {
    if (indexes.length === size) {
      const chosen = indexes.map((index) => ordered[index] as CoverageCandidate);
      const covered = unionOf(chosen.map((candidate) => candidate.solved)).size;
      const own = chosen.reduce((sum, candidate) => sum + candidate.solved.size, 0);
      if (!best || covered > best.covered || (covered === best.covered && own > best.own)) {
        best = { indexes: [...indexes], covered, own };
      }
      return;
    }
    for (let index = start; index <= ordered.length - (size - indexes.length); index += 1) {
      indexes.push(index);
      visit(index + 1);
      indexes.pop();
    }
  };
  visit(0);
  const found = best as { indexes: number[]; covered: number } | null;
  return {
    ids: found ? found.indexes.map((index) => (ordered[index] as CoverageCandidate).id) : [],
    covered: found?.covered ?? 0,
    method: 'exhaustive',
  };
}

/**
 * Greedy maximum coverage: repeatedly takes the candidate that adds the most uncovered tasks
 * (ties by preference). Joint coverage is a monotone submodular function of the set, so greedy
 * reaches at least (1 - 1/e) of the optimum (Nemhauser, Wolsey and Fisher, 1978); once nothing
 * adds coverage, the remaining slots go to the best single candidates.
 */
export function greedySelection(candidates: readonly CoverageCandidate[], count: number): ParentSelection {
  const remaining = [...candidates].sort(byPreference);
  const chosen: CoverageCandidate[] = [];
  const covered = new Set<string>();
  while (chosen.length < count && remaining.length > 0) {
    let bestIndex = 0;
    let bestGain = -1;
    remaining.forEach((candidate, index) => {
      let gain = 0;
      for (const id of candidate.solved) if (!covered.has(id)) gain += 1;
      if (gain > bestGain) {
        bestGain = gain;
        bestIndex = index;
      }
    });
    const [next] = remaining.splice(bestIndex, 1);
    if (!next) break;
    chosen.push(next);
    for (const id of next.solved) covered.add(id);
  }
  return { ids: chosen.map((candidate) => candidate.id), covered: covered.size, method: 'greedy' };
}

/**
 * The parents of the next round: at most `count` candidates whose joint coverage (the union of
 * the validation tasks they solve) is maximal. Exhaustive while the number of subsets is at most
 * `exhaustiveLimit`, greedy (with its (1 - 1/e) bound) beyond.
 */
export function selectParents(
  candidates: readonly CoverageCandidate[],
  count: number,
  exhaustiveLimit = 20_000,
): ParentSelection {
  if (count <= 0 || candidates.length === 0) return { ids: [], covered: 0, method: 'exhaustive' };
  const size = Math.min(count, candidates.length);
  return binomial(candidates.length, size) <= exhaustiveLimit
    ? exhaustiveSelection(candidates, count)
    : greedySelection(candidates, count);
}
