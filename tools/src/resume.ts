import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '@harness-s/core';
import type { Command } from 'commander';

/** Flags that name where a run goes or how it reports, never recorded as the run's settings. */
const placeFlags = ['resume', 'out', 'quiet'];
/** Flags that name files or folders: recorded as absolute paths, so a run continues from anywhere. */
const pathFlags = ['data', 'checkpoint', 'pool', 'profiles', 'simConfig'];

/** The flags given on the command line or by environment variable, not left at their defaults. */
export function givenFlags(command: Command): Set<string> {
  return new Set(
    Object.keys(command.opts()).filter((key) => {
      const source = command.getOptionValueSource(key);
      return source !== undefined && source !== 'default';
    }),
  );
}

/** What a run records of the flags it was started with (`flags` in its config.json). */
export function flagsToRecord(flags: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(flags)
      .filter(([key, value]) => !placeFlags.includes(key) && value !== undefined)
      .map(([key, value]) => [key, pathFlags.includes(key) && typeof value === 'string' ? resolve(value) : value]),
  );
}

const asRecorded = (key: string, value: unknown) =>
  pathFlags.includes(key) && typeof value === 'string' ? resolve(value) : value;

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/**
 * The flags of a continued run (`--resume DIR`): the ones it was started with, as its config.json
 * records them, with `changeable` ones (how it runs: concurrency, where services are) taken from
 * the command line where given. A given flag that would change what the run is (its environment,
 * policy, k, seed...) is refused, naming it and the recorded value, so a continuation never mixes
 * two runs in one folder. A run recorded without its flags continues with the flags as given.
 */
export async function flagsForResume<T extends object>(
  dir: string,
  flags: T,
  given: ReadonlySet<string>,
  changeable: readonly string[],
): Promise<T> {
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath)) return flags;
  const config = JSON.parse(await readFile(configPath, 'utf8')) as { flags?: Record<string, unknown> };
  const recorded = config.flags;
  if (!recorded) return flags;
  const values = flags as Record<string, unknown>;
  const conflicts = [...given].filter(
    (key) =>
      !placeFlags.includes(key) &&
      !changeable.includes(key) &&
      values[key] !== undefined &&
      !isDeepStrictEqual(asRecorded(key, values[key]), recorded[key]),
  );
  if (conflicts.length > 0) {
    const described = conflicts.map(
      (key) =>
        `${flagName(key)} ${JSON.stringify(values[key])} (the run has ${recorded[key] === undefined ? 'none' : JSON.stringify(recorded[key])})`,
    );
    throw new ConfigError(
      `--resume ${dir}: ${described.join(', ')}; a continued run keeps its settings: leave ${conflicts.length === 1 ? 'it' : 'them'} out, or start a new run with --out`,
      { code: 'resume-mismatch' },
    );
  }
  const kept = Object.fromEntries(
    changeable.filter((key) => given.has(key) && values[key] !== undefined).map((key) => [key, values[key]]),
  );
  const places = Object.fromEntries(placeFlags.filter((key) => key in values).map((key) => [key, values[key]]));
  return { ...recorded, ...kept, ...places } as T;
}
