import type { TrainSummary } from '@harness-s/core';
import { rescueSuccessOf } from '../compared-runs.js';
import { renderTable } from '../format.js';
import { type PairedDifference, pairedDifference, pairedDifferenceCell } from '../paired-differences.js';
import { breadthAblationShape } from './settings.js';

type Rates = Pick<TrainSummary['evalUnderH0'], 'passAtK' | 'avgAtK'>;

/** What the comparisons read of a run: a reproduction's result record, or the report's. */
export interface PairedRecord
  extends Pick<
    TrainSummary,
    'env' | 'method' | 'seed' | 'k' | 'effectiveGroupRate' | 'rescueTriggerRate' | 'rescueSuccessRate'
  > {
  /** `main`, or the router ablation the run is. */
  variant: string;
  evalUnderH0: Rates;
  rank1?: Rates | undefined;
  rank1H0?: Rates | undefined;
}

/** A value of a run, or undefined where the run has none (which leaves its pair out). */
type Value = (record: PairedRecord) => number | undefined;

interface Comparison {
  label: string;
  /** Of one environment's records: the runs compared, and the ones they are compared with. */
  first: (record: PairedRecord) => boolean;
  second: (record: PairedRecord) => boolean;
  /** Per column: what is compared, or null where the comparison has nothing to say. */
  values: Array<[Value, Value] | null>;
}

const passAtK: Value = (record) => record.evalUnderH0.passAtK;
const avgAtK: Value = (record) => record.evalUnderH0.avgAtK;
const effectiveGroups: Value = (record) => record.effectiveGroupRate;
const same = (value: Value): [Value, Value] => [value, value];

const run =
  (method: string, variant = 'main') =>
  (record: PairedRecord) =>
    record.method === method && record.variant === variant;

/** What the method's claims compare, in the order of the tables above. */
function comparisons(groupSize: number): Comparison[] {
  const breadth = breadthAblationShape(groupSize);
  return [
    {
      label: 'harness-s − grpo',
      first: run('harness-s'),
      second: run('grpo'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), null],
    },
    {
      label: 'harness-s − h0-resample',
      first: run('harness-s'),
      second: run('h0-resample'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), same(rescueSuccessOf)],
    },
    {
      label: 'h0-resample − grpo',
      first: run('h0-resample'),
      second: run('grpo'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), null],
    },
    {
      label: 'mixture − grpo',
      first: run('mixture'),
      second: run('grpo'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), null],
    },
    {
      label: 'adaptive − fixed profiles',
      first: run('harness-s'),
      second: run('harness-s', 'fixed-profiles'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), same(rescueSuccessOf)],
    },
    {
      label: `${groupSize}x1 − ${breadth.variants}x${breadth.attemptsPerVariant}`,
      first: run('harness-s'),
      second: run('harness-s', 'rescue-4x2'),
      values: [same(passAtK), same(avgAtK), same(effectiveGroups), same(rescueSuccessOf)],
    },
    {
      // The same run's trained policy, Rank-1 routed and under H0, on the same test attempts.
      label: 'Rank-1 − H0, after training',
      first: (record) => run('harness-s')(record) && record.rank1 !== undefined,
      second: (record) => run('harness-s')(record) && record.rank1 !== undefined,
      values: [
        [(record) => record.rank1?.passAtK, (record) => (record.rank1H0 ?? record.evalUnderH0).passAtK],
        [(record) => record.rank1?.avgAtK, (record) => (record.rank1H0 ?? record.evalUnderH0).avgAtK],
        null,
        null,
      ],
    },
  ];
}

/** The differences of `first` from `second`, paired by seed, where both have the value. */
function differencesBySeed(
  first: readonly PairedRecord[],
  second: readonly PairedRecord[],
  [valueOfFirst, valueOfSecond]: [Value, Value],
): number[] {
  return first.flatMap((record) => {
    const partner = second.find((other) => other.seed === record.seed);
    const a = valueOfFirst(record);
    const b = partner && valueOfSecond(partner);
    return a === undefined || b === undefined ? [] : [a - b];
  });
}

/** One comparison in one environment: its differences by column (null: not compared there). */
export interface PairedRow {
  env: string;
  label: string;
  /** The most pairs of any column (the seeds both sides ran). */
  seeds: number;
  cells: Array<PairedDifference | null>;
}

/** The columns of `PairedRow.cells`. */
export const pairedColumns = (k: number) => [`Pass@${k}`, `Avg@${k}`, 'effective groups', 'rescue success'];

/**
 * The reproduction's comparisons (harness-s against grpo and h0-resample, h0-resample and mixture
 * against grpo, the router ablations, Rank-1 against H0) as paired differences over seeds, with their 95% t intervals: how far each
 * ordering the tables show stands above the spread between seeds. A comparison without a pair in
 * an environment is left out.
 */
export function pairedRows(records: readonly PairedRecord[]): PairedRow[] {
  const envs = [...new Set(records.map((record) => record.env))];
  return envs.flatMap((env) => {
    const ofEnv = records.filter((record) => record.env === env);
    const groupSize = (ofEnv.find(run('harness-s')) ?? ofEnv[0])?.k ?? 8;
    return comparisons(groupSize).flatMap((comparison) => {
      const first = ofEnv.filter(comparison.first);
      const second = ofEnv.filter(comparison.second);
      const cells = comparison.values.map((values) =>
        values ? pairedDifference(differencesBySeed(first, second, values)) : null,
      );
      const seeds = Math.max(...cells.map((cell) => cell?.pairs ?? 0));
      return seeds === 0 ? [] : [{ env, label: comparison.label, seeds, cells }];
    });
  });
}

/** `pairedRows` as a text table (empty when there are none), `compare --against` for a reproduction. */
export function formatPairedDifferences(records: readonly PairedRecord[], k: number): string {
  const rows = pairedRows(records);
  if (rows.length === 0) return '';
  return `Paired by seed (points: mean difference [95% t interval]; an interval that spans 0 is within the spread between seeds; "every pair": the same difference in each, no spread to judge it by)\n${renderTable(
    ['env', 'comparison', 'seeds', ...pairedColumns(k)],
    rows.map((row) => [
      row.env,
      row.label,
      String(row.seeds),
      ...row.cells.map((cell) => (cell === null ? '' : pairedDifferenceCell(cell, row.seeds))),
    ]),
  )}`;
}
