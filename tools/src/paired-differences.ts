import { ConfigError, mean, sampleStdDev, type TrainSummary } from '@harness-s/core';
import { type ComparedGroup, rescueSuccessOf } from './compared-runs.js';
import { percentText } from './report/stats.js';

/** Two-sided 95% quantiles of Student's t, by degrees of freedom 1 to 30 (above: the normal's). */
const t975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The mean of paired differences and its 95% t interval (null with fewer than two pairs). */
export interface PairedDifference {
  pairs: number;
  mean: number;
  interval: [number, number] | null;
}

export function pairedDifference(differences: readonly number[]): PairedDifference {
  const pairs = differences.length;
  const center = pairs > 0 ? mean(differences) : Number.NaN;
  if (pairs < 2) return { pairs, mean: center, interval: null };
  const half = (t975[pairs - 2] ?? 1.96) * (sampleStdDev(differences) / Math.sqrt(pairs));
  return { pairs, mean: center, interval: [center - half, center + half] };
}

/** A fraction in percentage points as shown, to a tenth: float noise (-1e-17) is 0, not -0. */
const shownPoints = (value: number): number => Number(percentText(value)) || 0;

/** A fraction as signed percentage points to a tenth: `+8.3`, `-2.1`, `+0.0`. */
export function signedPoints(value: number): string {
  const shown = shownPoints(value);
  return `${shown >= 0 ? '+' : ''}${shown.toFixed(1)}`;
}

/** `[-2.1, +18.7]` in percentage points. */
export const intervalText = ([low, high]: readonly [number, number]): string =>
  `[${signedPoints(low)}, ${signedPoints(high)}]`;

/**
 * Every pair differs by the same amount: the t interval collapses to a point, which says nothing
 * about how sure the difference is (three seeds alike are as likely by chance as one).
 */
export const withoutSpread = (difference: PairedDifference): boolean =>
  // Float noise (0.7 - 0.6 against 0.6 - 0.5) is no spread.
  difference.interval !== null && difference.interval[1] - difference.interval[0] < 1e-9;

/**
 * `+8.3 [-2.1, +18.7]` in percentage points; the interval left out for a single pair, and
 * `+8.3 (every pair)` where every pair differs by the same amount.
 */
export function pairedDifferenceText(difference: PairedDifference): string {
  if (difference.pairs === 0) return '-';
  const { interval } = difference;
  if (!interval) return signedPoints(difference.mean);
  return withoutSpread(difference)
    ? `${signedPoints(difference.mean)} (every pair)`
    : `${signedPoints(difference.mean)} ${intervalText(interval)}`;
}

/** `pairedDifferenceText`, and how many pairs it has when fewer than the `seeds` of its row. */
export function pairedDifferenceCell(difference: PairedDifference, seeds: number): string {
  const text = pairedDifferenceText(difference);
  return difference.pairs > 0 && difference.pairs < seeds ? `${text} (${difference.pairs} pairs)` : text;
}

/**
 * What `--against` compares, per run (the names `--json` gives them); undefined where a run has no
 * such value (rescue success of a run that never rescued), which leaves its pair out.
 */
const measures: ReadonlyArray<[string, string, (summary: TrainSummary) => number | undefined]> = [
  ['passAtK', 'Pass@k', (summary) => summary.evalUnderH0.passAtK],
  ['avgAtK', 'Avg@k', (summary) => summary.evalUnderH0.avgAtK],
  ['effectiveGroupRate', 'effective groups', (summary) => summary.effectiveGroupRate],
  ['rescueSuccessRate', 'rescue success', rescueSuccessOf],
];

/** A group's differences from its baseline group, by measure. */
export interface GroupDifferences {
  group: ComparedGroup;
  /** The baseline group it was paired with (none: no baseline of its environment). */
  baseline: ComparedGroup | undefined;
  differences: Record<string, PairedDifference>;
}

/** A group's value of a setting: its own column, else its runs' setting (the same for all of them). */
const settingOf = (group: ComparedGroup, key: string): string =>
  group.settings[key] ?? group.runs[0]?.settings[key] ?? '-';

/** `method=grpo` -> ['method', 'grpo'], or an error naming the flag. */
export function parseAgainst(text: string): [string, string] {
  const match = /^([^=]+)=(.+)$/.exec(text);
  if (!match?.[1] || !match[2])
    throw new ConfigError(`--against: give SETTING=VALUE, e.g. method=grpo, not '${text}'`, { code: 'bad-flag' });
  return [match[1], match[2]];
}

/**
 * Each group against the baseline group (`setting=value`) of the same environment and evaluation
 * k that agrees with it on the most other settings: the differences of its runs from the
 * baseline's runs of the same seed, in Pass@k, Avg@k, effective-group rate and rescue success
 * (between runs that both rescued).
 */
export function againstBaseline(
  groups: readonly ComparedGroup[],
  keys: readonly string[],
  [setting, value]: [string, string],
): GroupDifferences[] {
  const baselines = groups.filter((group) => settingOf(group, setting) === value);
  if (baselines.length === 0) {
    const known = [...new Set(groups.flatMap((group) => group.runs.flatMap((run) => Object.keys(run.settings))))];
    if (!known.includes(setting))
      throw new ConfigError(
        `--against ${setting}=${value}: no run has the setting '${setting}'; they have ${known.filter((key) => !key.startsWith('policy.')).join(', ')}`,
        { code: 'bad-flag' },
      );
    const seen = [...new Set(groups.map((group) => settingOf(group, setting)))].join(', ');
    throw new ConfigError(`--against ${setting}=${value}: no runs with it (${setting} is ${seen})`, {
      code: 'bad-flag',
    });
  }
  for (const group of groups) checkOneRunPerSeed(group, keys);
  const same = (a: ComparedGroup, b: ComparedGroup, key: string) => settingOf(a, key) === settingOf(b, key);
  const label = (group: ComparedGroup) => keys.map((key) => `${key}=${settingOf(group, key)}`).join(' ');
  return groups
    .filter((group) => !baselines.includes(group))
    .map((group) => {
      const candidates = baselines.filter((baseline) => same(group, baseline, 'env') && same(group, baseline, 'evalK'));
      const agreement = (baseline: ComparedGroup) => keys.filter((key) => same(group, baseline, key)).length;
      const ranked = candidates.sort((a, b) => agreement(b) - agreement(a));
      const [baseline, runnerUp] = ranked;
      if (baseline && runnerUp && agreement(runnerUp) === agreement(baseline))
        throw new ConfigError(
          `--against ${setting}=${value}: for ${label(group)} it matches ${ranked.filter((other) => agreement(other) === agreement(baseline)).length} rows alike (${ranked
            .filter((other) => agreement(other) === agreement(baseline))
            .map(label)
            .join('; ')}); name one (e.g. add another setting to --by, or --against a setting only one of them has)`,
          { code: 'bad-flag' },
        );
      const bySeed = new Map(baseline?.runs.map((run) => [run.summary.seed, run.summary]) ?? []);
      const pairs = group.runs.flatMap((run) => {
        const other = bySeed.get(run.summary.seed);
        return other ? [[run.summary, other] as const] : [];
      });
      const differences = Object.fromEntries(
        measures.map(([name, , read]) => [
          name,
          pairedDifference(
            pairs.flatMap(([own, base]) => {
              const [a, b] = [read(own), read(base)];
              return a === undefined || b === undefined ? [] : [a - b];
            }),
          ),
        ]),
      );
      return { group, baseline, differences };
    });
}

/**
 * Refuses a row holding two runs of one seed (runs that differ in a setting `--by` does not
 * show): pairing by seed would count that seed twice and narrow the interval, or drop one of them.
 */
function checkOneRunPerSeed(group: ComparedGroup, keys: readonly string[]): void {
  const seen = new Map<number, ComparedGroup['runs'][number]>();
  for (const run of group.runs) {
    const earlier = seen.get(run.summary.seed);
    if (!earlier) {
      seen.set(run.summary.seed, run);
      continue;
    }
    const differ = [...new Set([...Object.keys(run.settings), ...Object.keys(earlier.settings)])].filter(
      (key) => run.settings[key] !== earlier.settings[key] && !keys.includes(key),
    );
    throw new ConfigError(
      `--against: the row ${keys.map((key) => `${key}=${settingOf(group, key)}`).join(' ')} holds two runs of seed ${run.summary.seed}${differ.length ? ` (they differ in ${differ.slice(0, 4).join(', ')})` : ''}, so its seeds cannot be paired one to one; add ${differ[0] ? `${differ[0]} ` : 'the setting that tells them apart '}to --by`,
      { code: 'bad-flag' },
    );
  }
}

/** The text table of `againstBaseline`'s result. */
export function differencesTable(
  results: readonly GroupDifferences[],
  keys: readonly string[],
  k: string,
): { headers: string[]; rows: string[][] } {
  return {
    headers: [...keys, 'paired seeds', ...measures.map(([, label]) => `Δ ${label.replace('@k', `@${k}`)}`)],
    rows: results.map(({ group, differences }) => [
      ...keys.map((key) => settingOf(group, key)),
      String(differences['passAtK']?.pairs ?? 0),
      // A measure some pairs lack (rescue success of a run that never rescued) says how many it has.
      ...measures.map(([name]) => {
        const difference = differences[name];
        return difference ? pairedDifferenceCell(difference, differences['passAtK']?.pairs ?? 0) : '-';
      }),
    ]),
  };
}

/**
 * Whether a difference stands clear of 0 as shown (its interval, rounded to a tenth of a point,
 * excludes 0): 1 above, -1 below, 0 within the spread between seeds, with a single pair, or with
 * no spread at all to judge by (`withoutSpread`).
 */
export function clearOfZero(difference: PairedDifference): -1 | 0 | 1 {
  if (!difference.interval || withoutSpread(difference)) return 0;
  const [low, high] = difference.interval.map(shownPoints) as [number, number];
  return low > 0 ? 1 : high < 0 ? -1 : 0;
}
