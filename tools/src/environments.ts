import { ConfigError, type Environment, type Policy } from '@harness-s/core';
import { createAppWorldEnvironment, createAppWorldRemoteEnvironment } from '@harness-s/env-appworld';
import { createDbbenchEnvironment, type DbbenchScoring } from '@harness-s/env-dbbench';
import { createSwegymEnvironment } from '@harness-s/env-swegym';

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

const factories: Record<string, (options: EnvironmentOptions) => Environment> = {
  dbbench: (options) => {
    const scoring = options.scoring ?? 'v0.2';
    if (scoring !== 'v0.2' && scoring !== 'normalized') {
      throw new ConfigError(`--scoring must be v0.2 or normalized, got '${scoring}'`, { code: 'bad-flag' });
    }
    return createDbbenchEnvironment({
      scoring: scoring as DbbenchScoring,
      ...(options.db ? { db: options.db } : {}),
    }) as unknown as Environment;
  },
  swegym: (options) => {
    const fromPlans = options.actionsFrom === 'plan';
    // The local sandbox is a directory on this machine: it confines nothing, so only plans run there
    // unless the user says otherwise.
    const sandbox = options.sandbox ?? (fromPlans ? 'local' : 'docker');
    if (sandbox !== 'local' && sandbox !== 'docker') {
      throw new ConfigError(`--sandbox must be local or docker, got '${sandbox}'`, { code: 'bad-flag' });
    }
    if (sandbox === 'local' && !fromPlans && !options.unconfined) {
      throw new ConfigError(
        'swegym: --sandbox local runs every command on this machine, unconfined, and this policy writes its own commands; use --sandbox docker (no network, resource limits), or add --unconfined to run them here anyway',
        { code: 'unconfined-actions' },
      );
    }
    return createSwegymEnvironment({ sandbox }) as unknown as Environment;
  },
  appworld: (options) =>
    (options.appworldUrl?.length
      ? createAppWorldRemoteEnvironment({ urls: options.appworldUrl })
      : createAppWorldEnvironment()) as unknown as Environment,
};

export const environmentNames = (): string[] => Object.keys(factories);

/** Creates an environment by its `--env` name. */
export function createEnvironment(name: string, options: EnvironmentOptions = {}): Environment {
  const factory = factories[name];
  if (!factory) {
    throw new ConfigError(`unknown --env '${name}'; available: ${environmentNames().join(', ')}`, {
      code: 'unknown-env',
    });
  }
  return factory(options);
}

/** The split `eval` and `replay` read without `--split`: `dev` where the environment ships one, else its first. */
export function defaultSplit(environment: Pick<Environment, 'id' | 'splits'>): string {
  const split = environment.splits.includes('dev') ? 'dev' : environment.splits[0];
  if (split === undefined) {
    throw new ConfigError(`${environment.id} ships no split: give --data FILE`, { code: 'bad-flag' });
  }
  return split;
}
