import type { TrainSummary } from '@harness-s/core';

/** A training run found under the given folders: its summary and the settings it ran with. */
export interface ComparedRun {
  dir: string;
  summary: TrainSummary;
  /** Flattened settings (`method`, `k`, `router`, `reanchorEvery`, `policy.theta.inspect-table`...). */
  settings: Record<string, string>;
}

/** Runs grouped by the settings that tell them apart (every seed of a configuration together). */
export interface ComparedGroup {
  /** The differing settings' values for this group. */
  settings: Record<string, string>;
  runs: ComparedRun[];
}

/** Methods that rescue all-failed groups: only their runs have a rescue success. */
export const rescuingMethods: ReadonlySet<string> = new Set(['harness-s', 'h0-resample']);

/**
 * A run's rescue success: undefined for a run that rescued no group. Summaries written before the
 * rate could be null say 0 for those, so a method that never rescues, or a run that triggered
 * none, has none either.
 */
export const rescueSuccessOf = (
  summary: Pick<TrainSummary, 'method' | 'rescueTriggerRate' | 'rescueSuccessRate'>,
): number | undefined =>
  summary.rescueSuccessRate !== null && rescuingMethods.has(summary.method) && summary.rescueTriggerRate > 0
    ? summary.rescueSuccessRate
    : undefined;
