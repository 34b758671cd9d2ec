import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, folderHolds, readJson, runLockFile } from '@harness-s/core';
import type { Command } from 'commander';

/** Flags that name where a run goes or how it reports, never recorded as the run's settings. */
const placeFlags = ['resume', 'out', 'quiet'];
/** Flags that name files or folders: recorded as absolute paths, so a run continues from anywhere. */
const pathFlags = ['data', 'checkpoint', 'pool', 'profiles', 'simConfig'];
/** Flags that are service URLs: recorded without their password. */
const urlFlags = ['db', 'redis', 'baseUrl'];
/** What a recorded URL's password became. */
const hidden = '***';

/**
 * Checks, before any work, that `--out` is a new or empty folder or one holding only files the
 * command itself writes there (`own`), which it may replace; anything else (a run, a pool, the
 * user's files) is refused, so it is never overwritten.
 */
export async function checkOwnFolder(given: string, own: readonly string[], what: string): Promise<void> {
  const dir = resolve(given);
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory())
    throw new ConfigError(`--out: ${dir} is a file, not a folder`, { code: 'bad-flag' });
  // A write the command was killed in may have left its temporary file (see writeFileAtomic).
  const isOwn = (name: string) =>
    own.some((file) => name === file || (name.startsWith(`${file}.`) && name.endsWith('.tmp')));
  const foreign = (await readdir(dir)).filter((name) => !isOwn(name));
  if (foreign.length === 0) return;
  throw new ConfigError(
    `--out: ${dir} already holds ${folderHolds(foreign)}; ${what} go in a new or empty folder, or one that holds only ${own.join(' and ')}`,
    { code: 'run-exists' },
  );
}

/**
 * Checks a run's folder before any work: with `--resume`, that it holds a `command` run (its
 * config.json says so); otherwise, that `--out` is a new or empty folder, so a new run never
 * writes into another run, a pool or a file.
 */
export async function checkRunFolder(
  command: 'train' | 'eval',
  flags: { out?: string; resume?: string },
): Promise<void> {
  const given = flags.resume ?? flags.out;
  if (given === undefined) return;
  const flag = flags.resume !== undefined ? '--resume' : '--out';
  const dir = resolve(given);
  if (!existsSync(dir)) {
    if (flags.resume !== undefined) throw new ConfigError(`--resume: no such folder ${dir}`, { code: 'bad-flag' });
    return;
  }
  if (!statSync(dir).isDirectory())
    throw new ConfigError(`${flag}: ${dir} is a file, not a folder`, { code: 'bad-flag' });
  if (flags.resume === undefined) {
    // A train start that failed before writing config.json may have left its copy of a task file only.
    // (And a run killed as it began may have left its lock only.)
    const left = (await readdir(dir)).filter(
      (name) => !(command === 'train' && name === 'split') && name !== runLockFile,
    );
    if (left.length === 0 && !existsSync(join(dir, 'config.json'))) return;
    const holds = existsSync(join(dir, 'config.json'))
      ? 'a run'
      : existsSync(join(dir, 'index.json'))
        ? 'a pool'
        : 'files';
    throw new ConfigError(
      `--out: ${dir} already holds ${holds}; a new run needs a new or empty folder${holds === 'a run' ? `, and --resume ${dir} continues that one` : ''}`,
      { code: 'run-exists' },
    );
  }
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath))
    throw new ConfigError(`--resume: ${dir} holds no run (no config.json)`, { code: 'bad-flag' });
  let recorded: unknown;
  try {
    recorded = (JSON.parse(await readFile(configPath, 'utf8')) as { command?: unknown } | null)?.command;
  } catch (error) {
    throw new ConfigError(`--resume: ${configPath}: ${(error as Error).message}`, { code: 'bad-flag' });
  }
  if (recorded !== command)
    throw new ConfigError(
      `--resume: ${dir} holds ${typeof recorded === 'string' ? `a run of 'harness-s ${recorded}'` : 'no run'}, not of 'harness-s ${command}'`,
      { code: 'bad-flag' },
    );
}

/** The flags given on the command line or by environment variable, not left at their defaults. */
export function givenFlags(command: Command): Set<string> {
  return new Set(
    Object.keys(command.opts()).filter((key) => {
      const source = command.getOptionValueSource(key);
      return source !== undefined && source !== 'default';
    }),
  );
}

const withoutPassword = (text: string): string => {
  try {
    const url = new URL(text);
    if (url.password) url.password = hidden;
    return url.toString();
  } catch {
    return text;
  }
};

/** A flag's value as a run records it: paths absolute (a harness only when it is a spec file), URLs without password. */
function asRecorded(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (pathFlags.includes(key) || (key === 'harness' && value.endsWith('.json'))) return resolve(value);
  if (urlFlags.includes(key)) return withoutPassword(value);
  return value;
}

/** What a run records of the flags it was started with (`flags` in its config.json). */
export function flagsToRecord(flags: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(flags)
      .filter(([key, value]) => !placeFlags.includes(key) && value !== undefined)
      .map(([key, value]) => [key, asRecorded(key, value)]),
  );
}

/** `--profile-tasks` for `profileTasks`. */
export const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/**
 * The flags of a continued run (`--resume DIR`): the ones it was started with, as its config.json
 * records them, with `changeable` ones (how it runs: concurrency, where services are) taken from
 * the command line where given, and defaults for flags the record does not know. A given flag
 * that would change what the run is (its environment, policy, k, seed...) is refused, naming it and
 * the recorded value, so a continuation never mixes two runs in one folder. A URL recorded without
 * its password must be given again. A run recorded without its flags continues with them as given,
 * except a training run (one `harness-s reproduce` or a program made): its settings are not flags to
 * restore, and it is refused with where to continue it.
 */
export async function flagsForResume<T extends object>(
  dir: string,
  flags: T,
  given: ReadonlySet<string>,
  changeable: readonly string[],
  /**
   * Flags whose effect the run checks itself, by its recorded settings: one the record lacks (the
   * run took its default) passes here, and the run refuses it only if it changes a setting.
   */
  checkedByRun: readonly string[] = [],
): Promise<T> {
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath)) return flags;
  const config = (await readJson(configPath)) as {
    flags?: Record<string, unknown>;
    command?: unknown;
    variant?: unknown;
  };
  const recorded = config.flags;
  if (!recorded && config.command === 'train')
    throw new ConfigError(
      `--resume: ${dir} records no train flags: it was made by ${config.variant === undefined ? 'a program (the library)' : '`harness-s reproduce`'}, not by \`harness-s train\`; continue it the way it was made${config.variant === undefined ? '' : ' (`harness-s reproduce --out` its reproduction folder continues every run in it)'}`,
      { code: 'bad-flag' },
    );
  if (!recorded) return flags;
  const values = flags as Record<string, unknown>;
  const conflicts = [...given].filter(
    (key) =>
      !placeFlags.includes(key) &&
      !changeable.includes(key) &&
      values[key] !== undefined &&
      !(recorded[key] === undefined && checkedByRun.includes(key)) &&
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
  const missing = urlFlags.filter(
    (key) => typeof recorded[key] === 'string' && (recorded[key] as string).includes(`:${hidden}@`) && !given.has(key),
  );
  if (missing.length > 0) {
    throw new ConfigError(
      `--resume ${dir}: ${missing.map((key) => `${flagName(key)} ${recorded[key]}`).join(', ')}: the run does not keep passwords; give ${missing.length === 1 ? 'it' : 'them'} again`,
      { code: 'resume-needs-secret' },
    );
  }
  const kept = Object.fromEntries(
    [...changeable, ...urlFlags]
      .filter((key) => given.has(key) && values[key] !== undefined)
      .map((key) => [key, values[key]]),
  );
  const places = Object.fromEntries(placeFlags.filter((key) => key in values).map((key) => [key, values[key]]));
  return { ...flags, ...recorded, ...kept, ...places } as T;
}

/** What makes an evaluation the run it is: a continuation that changes one of these is another run. */
const evalIdentity = ['env', 'split', 'data', 'k', 'attempts', 'seed', 'scoring', 'tasks'] as const;

/**
 * Refuses to continue an evaluation as another one: the settings the continuation resolved to
 * (`next`, the config it would record) against the ones `recorded` in the run's config.json,
 * whatever restored them (recorded flags, or the command line for a run that recorded none).
 * Compares the environment, split, tasks, k, attempts, seed and scoring, the policy's id and
 * version, the harness and the routing; names each difference.
 */
export function checkSameEvaluation(
  dir: string,
  recorded: Record<string, unknown>,
  next: Record<string, unknown>,
): void {
  const of = (config: Record<string, unknown>) => {
    const policy = (config['policy'] ?? {}) as { id?: unknown; version?: unknown };
    const harness = (config['harness'] ?? {}) as { id?: unknown };
    const routing = config['routing'] as { kind?: unknown } | null | undefined;
    return {
      ...Object.fromEntries(evalIdentity.map((key) => [key, config[key] ?? (key === 'attempts' ? config['k'] : null)])),
      policy: `${String(policy.id)}@${String(policy.version)}`,
      harness: harness.id ?? null,
      routing: routing?.kind ?? null,
    } as Record<string, unknown>;
  };
  const before = of(recorded);
  const now = of(next);
  const show = (value: unknown) => {
    const text = JSON.stringify(value);
    return text.length > 80 && Array.isArray(value) ? `${value.length} items` : text;
  };
  const differences = Object.keys(now)
    .filter((key) => !isDeepStrictEqual(before[key], now[key]))
    .map((key) => `${key} ${show(now[key])} (the run has ${show(before[key])})`);
  if (differences.length === 0) return;
  throw new ConfigError(
    `--resume ${dir} holds another evaluation: ${differences.join(', ')}; a continued run keeps its settings (give them as the run was made, or start a new run with --out)`,
    { code: 'resume-mismatch' },
  );
}

/**
 * Runs the checks of a command's flags; for a continued run (`resume`: its folder), whose flags
 * mostly come from its config.json, a flag error says so: `--resume DIR: with the flags its
 * config.json records: MESSAGE`, so a value the record holds is not taken for one given.
 */
export function recordedFlagsChecked<T>(resume: string | undefined, check: () => T): T {
  if (resume === undefined) return check();
  try {
    return check();
  } catch (error) {
    if (!ConfigError.isInstance(error) || error.code !== 'bad-flag') throw error;
    throw new ConfigError(`--resume ${resolve(resume)}: with the flags its config.json records: ${error.message}`, {
      code: 'bad-flag',
      cause: error,
    });
  }
}
