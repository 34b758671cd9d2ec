import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, shownValue } from '../errors.js';
import { formatZodError } from '../jsonl.js';
import { TrainConfig } from './train-config.js';

/** What a continued run may change of its settings: how far it goes and how it runs. */
export const resumeChangeable: readonly string[] = ['steps', 'concurrency', 'maxInfraRetries'];
/** What a run is besides its settings, as config.json records it. */
const identity = ['env', 'h0', 'pool', 'router', 'trainer', 'trainTasks', 'testTasks'];

const shown = (value: unknown): string => shownValue(value, 'nothing');

const listed = (items: readonly unknown[]): string => {
  const text = items.map((item) => JSON.stringify(item)).join(', ');
  return text.length > 120 ? `${text.slice(0, 120)}… (${items.length})` : text;
};

/**
 * `key given (the run has recorded)`; two lists too long to show whole are told apart by what one
 * has and the other lacks, or by their order.
 */
function difference(key: string, given: unknown, recorded: unknown): string {
  const whole = `${key} ${shown(given)} (the run has ${shown(recorded)})`;
  if (!Array.isArray(given) || !Array.isArray(recorded) || !whole.includes('…')) return whole;
  const added = given.filter((item) => !recorded.some((other) => isDeepStrictEqual(item, other)));
  const missing = recorded.filter((item) => !given.some((other) => isDeepStrictEqual(item, other)));
  const parts = [
    ...(added.length > 0 ? [`${added.length} the run lacks: ${listed(added)}`] : []),
    ...(missing.length > 0 ? [`without ${missing.length} of the run's: ${listed(missing)}`] : []),
  ];
  const changes =
    parts.length > 0
      ? parts.join('; ')
      : given.length === recorded.length
        ? 'the same items in another order'
        : 'the same items, repeated otherwise';
  return `${key}: ${given.length} items (the run has ${recorded.length}), ${changes}`;
}

/**
 * Refuses to continue, in `dir`, a run other than the one its config.json records: other settings
 * (besides `resumeChangeable`), environment, base harness, pool, router, trainer or task ids, or
 * fewer steps than the checkpoint has trained. Each difference is named with both values.
 */
export function checkResumedRun(dir: string, recorded: unknown, given: Record<string, unknown>, trained: number): void {
  const record = (recorded ?? {}) as Record<string, unknown>;
  const differences: string[] = [];
  // A mixture takes the pool's first variants; otherwise the pool is a set (its order follows validation counts).
  const asSet = (value: unknown) => (Array.isArray(value) ? [...value].sort() : value);
  const unordered = (given['config'] as Record<string, unknown> | undefined)?.['method'] !== 'mixture';
  // The adaptive router was once recorded as `adaptive-adaptive` or `adaptive-fixed`.
  const routerOf = (value: unknown) =>
    typeof value === 'string' ? value.replace(/^adaptive-(adaptive|fixed)$/, '$1') : value;
  const same = (key: string) =>
    key === 'pool' && unordered
      ? isDeepStrictEqual(asSet(record[key]), asSet(given[key]))
      : key === 'router'
        ? routerOf(record[key]) === routerOf(given[key])
        : isDeepStrictEqual(record[key], given[key]);
  // A run of another method may have recorded a router it did not use.
  const routes = (given['config'] as Record<string, unknown> | undefined)?.['method'] === 'harness-s';
  for (const key of identity)
    if (key in record && (key !== 'router' || routes) && !same(key))
      differences.push(difference(key, given[key], record[key]));
  // Recorded before a setting existed, a config reads that setting's default.
  const before = TrainConfig.safeParse(record['config']);
  if (!before.success)
    throw new ConfigError(
      `resume: ${join(dir, 'config.json')} ${record['config'] === undefined ? 'records no training config' : `holds a training config that does not read: ${formatZodError(before.error)}`}; the run cannot be checked against the one given: continue it with the version that made it, or start a new run in another folder`,
      { code: 'resume-mismatch' },
    );
  const then = before.data as Record<string, unknown>;
  const now = given['config'] as Record<string, unknown>;
  for (const key of new Set([...Object.keys(then), ...Object.keys(now)]))
    if (!resumeChangeable.includes(key) && !isDeepStrictEqual(then[key], now[key]))
      differences.push(difference(`config.${key}`, now[key], then[key]));
  if (differences.length > 0)
    throw new ConfigError(
      `resume: ${dir} holds another run: ${differences.join(', ')}; a continued run may change only ${resumeChangeable.join(', ')}`,
      { code: 'resume-mismatch' },
    );
  const steps = now['steps'];
  if (typeof steps === 'number' && steps < trained)
    throw new ConfigError(`resume: steps ${steps}: the run in ${dir} has trained ${trained} steps already`, {
      code: 'resume-mismatch',
    });
}
