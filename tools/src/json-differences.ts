/** One place where two JSON values differ: its dotted path and the value on each side. */
export interface JsonDifference {
  path: string;
  before: unknown;
  now: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Where two JSON values differ, in key order: objects are compared key by key, anything else
 * (arrays included) as a whole. `path` prefixes every path (`policy` -> `policy.theta.x`).
 */
export function jsonDifferences(before: unknown, now: unknown, path = ''): JsonDifference[] {
  if (isRecord(before) && isRecord(now)) {
    return [...new Set([...Object.keys(before), ...Object.keys(now)])].flatMap((key) =>
      jsonDifferences(before[key], now[key], path ? `${path}.${key}` : key),
    );
  }
  return JSON.stringify(before) === JSON.stringify(now) ? [] : [{ path, before, now }];
}
