import { ApiError } from './definition.js';

/** A validated string argument. */
export const text = (args: Record<string, unknown>, name: string): string => String(args[name] ?? '');
/** A validated number argument. */
export const num = (args: Record<string, unknown>, name: string): number => Number(args[name] ?? 0);
/** A validated optional argument: null when not given. */
export const maybe = <T>(args: Record<string, unknown>, name: string): T | null => (args[name] ?? null) as T | null;

/** The row, or a 404 naming what was not found. */
export function found<T>(row: T | undefined, what: string): T {
  if (row === undefined) throw new ApiError(404, `${what} not found.`);
  return row;
}

/** Money rounded to cents, as the apps store and show it. */
export const cents = (value: number): number => Math.round(value * 100) / 100;

const compare = (a: unknown, b: unknown): number => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
};

/**
 * One page of a list, after sorting by `sort_by` ("+field", "-field" or "field"); without it the
 * list keeps the order the app gives it. Pages past the end are empty, which is how agents know
 * to stop.
 */
export function pageOf<T extends Record<string, unknown>>(rows: readonly T[], args: Record<string, unknown>): T[] {
  const sortBy = args['sort_by'];
  let ordered = [...rows];
  if (typeof sortBy === 'string' && sortBy !== '') {
    const descending = sortBy.startsWith('-');
    const field = sortBy.replace(/^[+-]/, '');
    ordered = ordered.sort((a, b) => (descending ? -1 : 1) * compare(a[field], b[field]));
  }
  const limit = Number(args['page_limit'] ?? 5);
  const index = Number(args['page_index'] ?? 0);
  return ordered.slice(index * limit, index * limit + limit);
}
