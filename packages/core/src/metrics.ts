/**
 * Pass@k by the unbiased estimator: 1 - C(n-c, k) / C(n, k) for one task with n attempts and c
 * successes (Chen et al., 2021). With n = k it is 1 when any attempt succeeded. When fewer than k
 * attempts were scored (infrastructure losses), k shrinks to n.
 */
export function passAtK(attempts: number, successes: number, k: number): number {
  if (!Number.isInteger(attempts) || !Number.isInteger(successes) || !Number.isInteger(k)) {
    throw new RangeError(`passAtK needs integers, got n=${attempts} c=${successes} k=${k}`);
  }
  if (successes < 0 || successes > attempts || k < 1) {
    throw new RangeError(`passAtK needs 0 <= c <= n and k >= 1, got n=${attempts} c=${successes} k=${k}`);
  }
  if (attempts === 0) return 0;
  const effectiveK = Math.min(k, attempts);
  const failures = attempts - successes;
  if (failures < effectiveK) return 1;
  // C(n-c, k) / C(n, k) = prod_{i=n-c+1..n} (1 - k / i), numerically stable.
  let allFail = 1;
  for (let i = failures + 1; i <= attempts; i += 1) allFail *= 1 - effectiveK / i;
  return 1 - allFail;
}

/** Per-task attempt counts, the input of the metrics. */
export interface TaskOutcome {
  id: string;
  attempts: number;
  successes: number;
}

/** The arithmetic mean; 0 for no values. */
export const mean = (values: readonly number[]): number =>
  values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0;

/** The sample standard deviation (n - 1 in the denominator); 0 for fewer than two values. */
export function sampleStdDev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const average = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - average) ** 2, 0) / (values.length - 1));
}

/** Pass@k averaged over tasks; tasks with no scored attempt are left out. */
export function meanPassAtK(outcomes: readonly TaskOutcome[], k: number): number {
  const scored = outcomes.filter((outcome) => outcome.attempts > 0);
  if (scored.length === 0) return 0;
  return scored.reduce((sum, outcome) => sum + passAtK(outcome.attempts, outcome.successes, k), 0) / scored.length;
}

/** Avg@k: mean success over each task's attempts, averaged over tasks. */
export function meanAvgAtK(outcomes: readonly TaskOutcome[]): number {
  const scored = outcomes.filter((outcome) => outcome.attempts > 0);
  if (scored.length === 0) return 0;
  return scored.reduce((sum, outcome) => sum + outcome.successes / outcome.attempts, 0) / scored.length;
}

/** A fraction as a percentage for people, e.g. `0.4567` -> `45.67%` (`digits` after the point). */
export const formatPercent = (fraction: number, digits = 2): string => `${(fraction * 100).toFixed(digits)}%`;

/** `1 step`, `3 steps`: a count and its noun, the noun plural unless the count is 1 (`plural` when not just +s). */
export const countOf = (count: number, noun: string, plural = `${noun}s`): string =>
  `${count} ${count === 1 ? noun : plural}`;
