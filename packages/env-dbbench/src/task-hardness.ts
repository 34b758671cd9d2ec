import type { DbbenchTask } from './records.js';

/**
 * How much harder than usual each skill is on a task, read from the task's own features. The
 * simulated policy lowers its logit for a decision point by this much, under every harness and
 * for every training method alike; a real policy ignores it. The features are the ones that make
 * DBBench tasks hard for real agents:
 *
 * - `quote-identifiers`: a table name with punctuation beyond spaces (`CSI:Miami Characters`,
 *   `Year(s) won`), which needs quoting that survives every statement.
 * - `inspect-table` (and `recover-from-error`): many columns, or column names with punctuation,
 *   where guessing fails and the error does not say what the names are.
 * - `answer-format`: several values to commit, or the literal answer `none`.
 * - `exact-values` (and `verify-after-write`): written values with dashes, thousands separators,
 *   quotes or non-ASCII characters, or many values in one write; a typo in them is hard to spot.
 */
export const dbbenchHardnessLevels = {
  /** A feature that makes a skill clearly harder. */
  hard: 3,
  /** Several hard features of the same skill, or one that nearly always trips agents. */
  veryHard: 8,
} as const;

const punctuated = (name: string): boolean => /[^A-Za-z0-9_ ]/.test(name);

/** The string literals of a SQL statement (plain ones, without escapes). */
function literals(statement: string): string[] {
  return [...statement.matchAll(/'([^'\\]*)'/g)].map((match) => match[1] ?? '');
}

const trickyValue = (value: string): boolean =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: non-ASCII is what makes a value tricky
  /[^\x00-\x7f]/.test(value) || /\d,\d{3}/.test(value) || /["–—]/.test(value) || /\s[-,]\s|\s,/.test(value);

/** Per-skill hardness of a DBBench task (skills not listed: 0). */
export function dbbenchHardness(task: DbbenchTask): Record<string, number> {
  const { hard, veryHard } = dbbenchHardnessLevels;
  const hardness: Record<string, number> = {};
  if (punctuated(task.tableName)) hardness['quote-identifiers'] = hard;
  const oddColumns = task.columns.filter(punctuated).length;
  if (oddColumns >= 2 || task.columns.length >= 8) {
    // Guessing fails, and the error names no real column, so recovering from it is hard too.
    hardness['inspect-table'] = oddColumns >= 3 ? veryHard : hard;
    hardness['recover-from-error'] = hard;
  }
  if (task.kind === 'question') {
    if (task.label.length >= 3) hardness['answer-format'] = veryHard;
    else if (task.label.length === 2 || task.label[0]?.toLowerCase() === 'none') hardness['answer-format'] = hard;
  } else {
    const values = literals(task.label[0] ?? '');
    const tricky = values.filter(trickyValue).length;
    const level =
      tricky >= 2 || (tricky >= 1 && values.length >= 5) ? veryHard : tricky === 1 || values.length >= 5 ? hard : 0;
    if (level > 0) {
      // A mistyped tricky value is as hard to spot when checking the table as it was to write.
      hardness['exact-values'] = level;
      hardness['verify-after-write'] = hard;
    }
  }
  return hardness;
}
