import type { ResultColumn, ResultTruncation, SessionLimits, SqlOutcome } from './backend.js';
import { defaultSessionLimits } from './backend.js';
import { type CellKind, cellBytes, toPythonValue } from './cell-values.js';
import type { PythonValue } from './python-text.js';

/** `SessionLimits` with every default filled in. */
export function resolveLimits(limits: SessionLimits = {}): Required<SessionLimits> {
  return {
    statementTimeoutMs: limits.statementTimeoutMs ?? defaultSessionLimits.statementTimeoutMs,
    maxRows: limits.maxRows ?? defaultSessionLimits.maxRows,
    maxResultBytes: limits.maxResultBytes ?? defaultSessionLimits.maxResultBytes,
    maxEpisodeBytes: limits.maxEpisodeBytes ?? defaultSessionLimits.maxEpisodeBytes,
  };
}

/**
 * Collects the rows of one statement as they stream in, converted to Python values, up to the row
 * and byte caps. Rows past a cap are not kept, so a huge result costs no memory.
 */
export class ResultCollector {
  private columns: ResultColumn[] = [];
  private kinds: CellKind[] = [];
  private readonly rows: PythonValue[][] = [];
  private bytes = 0;
  private truncation: ResultTruncation | null = null;

  constructor(private readonly limits: Required<SessionLimits>) {}

  /** The result's columns and how each prints. */
  setColumns(names: string[], kinds: CellKind[]): void {
    this.columns = names.map((name) => ({ name }));
    this.kinds = kinds;
  }

  /** Keeps one row; returns false once a cap is reached (that row and all later ones are dropped). */
  add(raw: readonly unknown[]): boolean {
    if (this.truncation) return false;
    const size = raw.reduce<number>((total, cell) => total + cellBytes(cell), 0);
    const limit =
      this.rows.length >= this.limits.maxRows
        ? 'rows'
        : this.bytes + size > this.limits.maxResultBytes
          ? 'bytes'
          : null;
    if (limit) {
      this.truncation = { limit, keptRows: this.rows.length };
      return false;
    }
    this.bytes += size;
    this.rows.push(raw.map((cell, index) => toPythonValue(this.kinds[index] ?? 'other', cell)));
    return true;
  }

  /**
   * Records that a row was not fetched because it alone is over a cap (the connection skipped it):
   * the result is cut there, as if `add` had refused it.
   */
  cut(limit: ResultTruncation['limit']): void {
    this.truncation ??= { limit, keptRows: this.rows.length };
  }

  get capped(): boolean {
    return this.truncation !== null;
  }

  outcome(): SqlOutcome {
    return { ok: true, columns: this.columns, rows: this.rows, truncated: this.truncation };
  }
}

/** The observation for a statement stopped by the episode's time limit. */
export function timeoutMessage(limits: Required<SessionLimits>): string {
  return `the statement was stopped: it ran longer than the ${limits.statementTimeoutMs / 1000} s time limit`;
}
