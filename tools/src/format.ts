import { formatPercent } from '@harness-s/core';

/** A plain text table with aligned columns, for terminals and logs. */
export function renderTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  /** How many leading columns are text, aligned left; the others are numbers, aligned right. */
  textColumns = 1,
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column < textColumns ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export const percent = (fraction: number): string => formatPercent(fraction);

export const duration = (milliseconds: number): string =>
  milliseconds < 1000 ? `${Math.round(milliseconds)} ms` : `${(milliseconds / 1000).toFixed(1)} s`;
