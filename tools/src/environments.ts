import { ConfigError, type Environment, type Policy } from '@harness-s/core';
import { builtInEnvironments } from './builtin-environments.js';
import type { EnvironmentEntry, EnvironmentFlag, EnvironmentOptions } from './environment-entry.js';
import { guardEnvironment } from './environment-guard.js';

export type { CleanupFlags, EnvironmentEntry, EnvironmentFlag, EnvironmentOptions } from './environment-entry.js';

/** Where a policy's actions come from: its environment's plans, or itself (see `EnvironmentOptions.actionsFrom`). */
export const actionsOf = (policy: Pick<Policy, 'needsPlan'>): 'plan' | 'model' => (policy.needsPlan ? 'plan' : 'model');

/** The environment options among a command's flags, only those given. */
export function environmentOptions(flags: EnvironmentOptions): EnvironmentOptions {
  return {
    ...(flags.scoring ? { scoring: flags.scoring } : {}),
    ...(flags.db ? { db: flags.db } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    ...(flags.appworldUrl?.length ? { appworldUrl: flags.appworldUrl } : {}),
    ...(flags.unconfined ? { unconfined: true } : {}),
  };
}

const entries = new Map<string, EnvironmentEntry>(builtInEnvironments.map((entry) => [entry.name, entry]));

/** What an `--env` name may be. */
export const environmentName = /^[a-z][a-z0-9-]*$/;

/** Adds an environment to the command line; a name already taken is refused. */
export function registerEnvironment(entry: EnvironmentEntry): void {
  if (!environmentName.test(entry.name)) {
    throw new ConfigError(`environment name '${entry.name}' must be lower-case letters, digits and dashes`, {
      code: 'bad-environment-name',
    });
  }
  if (entries.has(entry.name)) {
    throw new ConfigError(`environment '${entry.name}' is already registered`, { code: 'duplicate-environment' });
  }
  entries.set(entry.name, entry);
}

export const environmentNames = (): string[] => [...entries.keys()];

/** The registered environment of this name, or undefined. */
export const findEnvironment = (name: string): EnvironmentEntry | undefined => entries.get(name);

/** The registered environment of this `--env` name. */
export function environmentEntry(name: string): EnvironmentEntry {
  const entry = entries.get(name);
  if (!entry) {
    throw new ConfigError(`unknown --env '${name}'; available: ${environmentNames().join(', ')}`, {
      code: 'unknown-env',
    });
  }
  return entry;
}

/** The flag of each option a command's flags give. */
const flagOf: Record<EnvironmentFlag, string> = {
  scoring: '--scoring',
  db: '--db',
  sandbox: '--sandbox',
  appworldUrl: '--appworld-url',
  unconfined: '--unconfined',
};

/** The flags' options that are given. */
const given = (options: EnvironmentOptions): EnvironmentFlag[] =>
  (Object.keys(flagOf) as EnvironmentFlag[]).filter((option) => options[option] !== undefined);

/** The given options an environment does not take (none where its entry does not say which it takes). */
function untaken(entry: EnvironmentEntry, options: EnvironmentOptions): EnvironmentFlag[] {
  const takes = entry.options;
  return takes ? given(options).filter((option) => !takes.includes(option)) : [];
}

/** `options` without those environment `name` does not take: for a command that runs several. */
export function environmentOptionsFor(name: string, options: EnvironmentOptions): EnvironmentOptions {
  const dropped = new Set(untaken(environmentEntry(name), options));
  return Object.fromEntries(
    Object.entries(options).filter(([option]) => !dropped.has(option as EnvironmentFlag)),
  ) as EnvironmentOptions;
}

/** Refuses a flag that none of `names` takes (`reproduce --envs appworld --db URL`). */
export function checkEnvironmentOptions(names: readonly string[], options: EnvironmentOptions): void {
  const refusals = names.map((name) => new Set(untaken(environmentEntry(name), options)));
  const [first] = given(options).filter((option) => refusals.every((refused) => refused.has(option)));
  if (first)
    throw new ConfigError(
      `${flagOf[first]} is no option of ${names.length === 1 ? `--env ${names[0]}` : `any of --envs ${names.join(', ')}`}${takersOf(first)}`,
      { code: 'bad-flag' },
    );
}

/** Which environments take an option, said after a refusal. */
function takersOf(option: EnvironmentFlag): string {
  const takers = environmentNames().filter((name) => entries.get(name)?.options?.includes(option));
  return takers.length ? ` (${takers.join(', ')} ${takers.length === 1 ? 'takes' : 'take'} it)` : '';
}

/** Creates an environment by its `--env` name; a flag's option it does not take is refused. */
export function createEnvironment(name: string, options: EnvironmentOptions = {}): Environment {
  checkEnvironmentOptions([name], options);
  const environment = environmentEntry(name).create(options);
  // Runs, trajectories and harness specs name the environment by its id: a plug-in's must be its name.
  if (environment.id !== name)
    throw new ConfigError(
      `environment '${name}' creates an environment whose id is '${environment.id}': they must be equal (the plug-in's environment.name, the Environment's id and its H0's env)`,
      { code: 'bad-plugin' },
    );
  return guardEnvironment(environment);
}

/** The split `eval` and `replay` read without `--split`: `dev` where the environment ships one, else its first. */
export function defaultSplit(environment: Pick<Environment, 'id' | 'splits'>): string {
  const split = environment.splits.includes('dev') ? 'dev' : environment.splits[0];
  if (split === undefined) {
    throw new ConfigError(`${environment.id} ships no split: give --data FILE`, { code: 'bad-flag' });
  }
  return split;
}
