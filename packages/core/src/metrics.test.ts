import { describe, expect, it } from 'vitest';
import { countOf, mean, meanAvgAtK, meanPassAtK, passAtK, sampleStdDev } from './metrics.js';

/** C(n, k) by multiplication, for checking the estimator against its definition. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i += 1) result = (result * (n - k + i)) / i;
  return result;
}

describe('passAtK', () => {
  it('is the share of tasks solved at least once when n = k', () => {
    expect(passAtK(3, 0, 3)).toBe(0);
    expect(passAtK(3, 1, 3)).toBe(1);
    expect(passAtK(3, 3, 3)).toBe(1);
  });

  it('matches 1 - C(n-c, k) / C(n, k) for n > k', () => {
    for (const [n, c, k] of [
      [10, 2, 3],
      [8, 1, 3],
      [5, 0, 1],
      [20, 7, 5],
      [4, 1, 1],
    ] as const) {
      expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
    }
    // A hand-computed case: n=5, c=2, k=2 -> 1 - C(3,2)/C(5,2) = 1 - 3/10.
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
  });

  it('shrinks k to n when fewer attempts were scored', () => {
    expect(passAtK(2, 1, 3)).toBe(1);
    expect(passAtK(2, 0, 3)).toBe(0);
    expect(passAtK(0, 0, 3)).toBe(0);
  });

  it('refuses impossible counts', () => {
    expect(() => passAtK(2, 3, 1)).toThrow(RangeError);
    expect(() => passAtK(2, 1, 0)).toThrow(RangeError);
    expect(() => passAtK(2.5, 1, 1)).toThrow(RangeError);
  });
});

describe('task means', () => {
  const outcomes = [
    { id: 'a', attempts: 3, successes: 0 },
    { id: 'b', attempts: 3, successes: 1 },
    { id: 'c', attempts: 3, successes: 3 },
    { id: 'lost', attempts: 0, successes: 0 },
  ];

  it('averages Pass@k and Avg@k over tasks with scored attempts', () => {
    expect(meanPassAtK(outcomes, 3)).toBeCloseTo(2 / 3, 12);
    expect(meanAvgAtK(outcomes)).toBeCloseTo((0 + 1 / 3 + 1) / 3, 12);
  });

  it('is zero for no tasks', () => {
    expect(meanPassAtK([], 3)).toBe(0);
    expect(meanAvgAtK([])).toBe(0);
  });
});

describe('mean and sample standard deviation', () => {
  it('divides the squared deviations by n - 1', () => {
    // Deviations from the mean 5: -3, -1, -1, -1, 0, 0, 2, 4; squares sum to 32; 32 / 7.
    expect(mean([2, 4, 4, 4, 5, 5, 7, 9])).toBe(5);
    expect(sampleStdDev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(sampleStdDev([0.25, 0.75])).toBeCloseTo(Math.SQRT1_2 / 2, 12);
  });

  it('is 0 for fewer than two values, and the mean of none is 0', () => {
    expect(sampleStdDev([])).toBe(0);
    expect(sampleStdDev([0.4])).toBe(0);
    expect(mean([])).toBe(0);
  });
});

describe('counts in text', () => {
  it('name the noun in the plural unless the count is one', () => {
    expect(countOf(1, 'round')).toBe('1 round');
    expect(countOf(0, 'task')).toBe('0 tasks');
    expect(countOf(3, 'step')).toBe('3 steps');
    expect(countOf(2, 'index', 'indices')).toBe('2 indices');
  });
});
