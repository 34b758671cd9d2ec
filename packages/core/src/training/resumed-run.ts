import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '../errors.js';
import { TrainConfig } from './train-config.js';

/** What a continued run may change of its settings: how far it goes and how it runs. */
export const resumeChangeable: readonly string[] = ['steps', 'concurrency', 'maxInfraRetries'];
/** What a run is besides its settings, as config.json records it. */
const identity = ['env', 'h0', 'pool', 'router', 'trainer', 'trainTasks', 'testTasks'];

const shown = (value: unknown): string => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

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
  const same = (key: string) =>
    key === 'pool' && unordered
      ? isDeepStrictEqual(asSet(record[key]), asSet(given[key]))
      : isDeepStrictEqual(record[key], given[key]);
  for (const key of identity)
    if (key in record && !same(key))
      differences.push(`${key} ${shown(given[key])} (the run has ${shown(record[key])})`);
  // Recorded before a setting existed, a config reads that setting's default.
  const before = TrainConfig.safeParse(record['config']);
  const now = given['config'] as Record<string, unknown>;
  if (before.success) {
    const then = before.data as Record<string, unknown>;
    for (const key of new Set([...Object.keys(then), ...Object.keys(now)]))
      if (!resumeChangeable.includes(key) && !isDeepStrictEqual(then[key], now[key]))
        differences.push(`config.${key} ${shown(now[key])} (the run has ${shown(then[key])})`);
  }
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
