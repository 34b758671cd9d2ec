import { Random } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import {
  type CoverageCandidate,
  exhaustiveSelection,
  greedySelection,
  selectParents,
  solvedTasks,
  unionOf,
} from './coverage.js';

/** Every subset of exactly `size` candidates, for the brute-force optimum. */
function* subsets<T>(items: readonly T[], size: number, start = 0): Generator<T[]> {
  if (size === 0) {
    yield [];
    return;
  }
  for (let index = start; index <= items.length - size; index += 1) {
    for (const rest of subsets(items, size - 1, index + 1)) yield [items[index] as T, ...rest];
  }
}

const bruteForceBest = (candidates: readonly CoverageCandidate[], count: number): number => {
  let best = 0;
  for (const subset of subsets(candidates, Math.min(count, candidates.length))) {
    best = Math.max(best, unionOf(subset.map((candidate) => candidate.solved)).size);
  }
  return best;
};

function randomInstance(random: Random): { candidates: CoverageCandidate[]; count: number } {
  const tasks = 4 + random.int(9);
  const candidates = Array.from({ length: 2 + random.int(7) }, (_, index) => ({
    id: `v${index}`,
    solved: new Set(Array.from({ length: tasks }, (__, task) => `t${task}`).filter(() => random.next() < 0.35)),
  }));
  return { candidates, count: 1 + random.int(4) };
}

describe('solved tasks', () => {
  const perTask = [
    { id: 'a', attempts: 3, successes: 1 },
    { id: 'b', attempts: 3, successes: 2 },
    { id: 'c', attempts: 3, successes: 0 },
    { id: 'd', attempts: 4, successes: 2 },
  ];
  it('counts a task solved by majority (half the attempts or more) or by any success', () => {
    expect([...solvedTasks(perTask, 'majority')]).toEqual(['b', 'd']);
    expect([...solvedTasks(perTask, 'any')]).toEqual(['a', 'b', 'd']);
  });
});

describe('parent selection by joint coverage', () => {
  it('finds the optimum of exhaustive search on small cases', () => {
    const random = new Random(11);
    for (let trial = 0; trial < 120; trial += 1) {
      const { candidates, count } = randomInstance(random);
      const selection = selectParents(candidates, count);
      expect(selection.method).toBe('exhaustive');
      expect(selection.ids.length).toBe(Math.min(count, candidates.length));
      const chosen = candidates.filter((candidate) => selection.ids.includes(candidate.id));
      expect(unionOf(chosen.map((candidate) => candidate.solved)).size).toBe(selection.covered);
      expect(selection.covered).toBe(bruteForceBest(candidates, count));
    }
  });

  it('stays within the (1 - 1/e) bound with greedy, and agrees with the optimum on most small cases', () => {
    const random = new Random(5);
    let equal = 0;
    const trials = 300;
    for (let trial = 0; trial < trials; trial += 1) {
      const { candidates, count } = randomInstance(random);
      const optimum = exhaustiveSelection(candidates, count).covered;
      const greedy = greedySelection(candidates, count).covered;
      expect(greedy).toBeLessThanOrEqual(optimum);
      expect(greedy).toBeGreaterThanOrEqual(Math.ceil((1 - 1 / Math.E) * optimum));
      if (greedy === optimum) equal += 1;
    }
    expect(equal / trials).toBeGreaterThan(0.9);
  });

  it('prefers diverse parents over the best single ones', () => {
    const candidates = [
      { id: 'wide-a', solved: new Set(['1', '2', '3', '4']) },
      { id: 'wide-b', solved: new Set(['1', '2', '3', '5']) },
      { id: 'narrow', solved: new Set(['6', '7']) },
    ];
    expect(selectParents(candidates, 2)).toEqual({ ids: ['wide-a', 'narrow'], covered: 6, method: 'exhaustive' });
    expect(greedySelection(candidates, 2).ids).toEqual(['wide-a', 'narrow']);
  });

  it('switches to greedy when subsets are too many to enumerate', () => {
    const random = new Random(2);
    const { candidates } = randomInstance(random);
    expect(selectParents(candidates, 2, 1).method).toBe('greedy');
    expect(selectParents([], 3)).toEqual({ ids: [], covered: 0, method: 'exhaustive' });
  });
});
