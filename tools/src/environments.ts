import { ConfigError, type Environment, type Policy } from '@harness-s/core';
import { builtInEnvironments } from './builtin-environments.js';

/** Options shared by every command that opens episodes. */
export interface EnvironmentOptions {
  scoring?: string;
  /** Where dbbench episodes run: `pglite:` (default), `pglite:/folder`, `postgres://...`, `mysql://...`. */
  db?: string;
  /** Where swegym episodes run: `local` (default) or `docker`. */
  sandbox?: string;
  /** AppWorld environment servers (one task each at a time); the embedded world when absent. */
  appworldUrl?: string[];
  /**
   * Where the actions come from: `plan` when the policy walks the environment's own plans (the
   * simulated, oracle and empty policies), `model` when it writes them itself (default: the
   * cautious answer). A model's actions must run confined.
   */
  actionsFrom?: 'plan' | 'model';
  /** Run a model's actions where they are not confined (swegym `--sandbox local`), at the user's word. */
  unconfined?: boolean;
}

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

/** What `harness-s cleanup` was asked (its flags). */
export interface CleanupFlags {
  env: string;
  /** dbbench: the server to clean, e.g. `postgres://user@host:5432/db`. */
  db?: string;
  /** swegym: only the containers of this run label. */
  run?: string;
  /** swegym: also containers of runs still alive on this machine. */
  all?: boolean;
}

/**
 * An environment the command line can run: its `--env` name, how to open it, and what the
 * commands around it need to know. The built-in ones are in `builtin-environments.ts`; a plug-in
 * adds its own (`registerEnvironment`, or `HARNESS_S_PLUGINS`, see `plugins.ts`).
 */
export interface EnvironmentEntry {
  /** The `--env` name, equal to the environment's `id`. */
  name: string;
  /** Opens the environment with the command's options (refusing the ones it cannot honour). */
  create(options: EnvironmentOptions): Environment;
  /**
   * `harness-s cleanup --env NAME`: removes what killed runs left behind, and says what, a line each.
   * A cleanup that needs a flag not given throws a ConfigError with code `missing-cleanup-flag`, which
   * `cleanup` without `--env` reports as skipped.
   */
  cleanup?(flags: CleanupFlags): Promise<string[]>;
  /** Said when a second Ctrl-C exits before closing: how to remove what may be left behind. */
  leftovers?: string;
  /** Episodes are slow (whole test suites): `reproduce` gives it smaller budgets. */
  slow?: boolean;
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

/** Creates an environment by its `--env` name. */
export function createEnvironment(name: string, options: EnvironmentOptions = {}): Environment {
  return environmentEntry(name).create(options);
}

/** The split `eval` and `replay` read without `--split`: `dev` where the environment ships one, else its first. */
export function defaultSplit(environment: Pick<Environment, 'id' | 'splits'>): string {
  const split = environment.splits.includes('dev') ? 'dev' : environment.splits[0];
  if (split === undefined) {
    throw new ConfigError(`${environment.id} ships no split: give --data FILE`, { code: 'bad-flag' });
  }
  return split;
}
