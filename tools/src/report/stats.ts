import { mean, sampleStdDev as spread } from '@harness-s/core';
import { rescueSuccessOf } from '../compared-runs.js';

/** The mean over seeds, and its spread: the sample standard deviation the text tables print. */
export { mean, spread };

/** One point of a curve: the mean over seeds at a step, its spread, and how many seeds had it. */
export interface CurvePoint {
  x: number;
  y: number;
  spread: number;
  n: number;
}

/**
 * The mean curve of several runs' step series (one per seed). Steps a run has no value for (a
 * step without rescue, say) are left out of that step's mean rather than counted as zero.
 */
export function meanCurve(
  series: ReadonlyArray<ReadonlyArray<{ x: number; y: number | null | undefined }>>,
): CurvePoint[] {
  const byX = new Map<number, number[]>();
  for (const points of series) {
    for (const { x, y } of points) {
      if (y === null || y === undefined || !Number.isFinite(y)) continue;
      const values = byX.get(x) ?? [];
      values.push(y);
      byX.set(x, values);
    }
  }
  return [...byX.entries()]
    .sort(([a], [b]) => a - b)
    .map(([x, values]) => ({ x, y: mean(values), spread: spread(values), n: values.length }));
}

export const percentText = (fraction: number, digits = 1): string => `${(fraction * 100).toFixed(digits)}`;

/** `67.6 ± 2.1` (percent), or `67.6` for a single seed. */
export function meanSpreadText(values: readonly number[]): string {
  if (values.length === 0) return '–';
  const text = percentText(mean(values));
  return values.length > 1 ? `${text} ± ${percentText(spread(values))}` : text;
}

/** Values in first-seen order without repeats. */
export const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

/**
 * The rescue success rates of the runs that rescued anything (`rescueSuccessOf`): a run that rescued
 * no group has no rate, and averaging a 0 in would read as rescues that failed.
 */
export const rescueSuccessRates = (runs: ReadonlyArray<Parameters<typeof rescueSuccessOf>[0]>): number[] =>
  runs.flatMap((run) => rescueSuccessOf(run) ?? []);
