import { ConfigError, type Environment } from '@harness-s/core';
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
}

/** The environment options among a command's flags, only those given. */
export function environmentOptions(flags: EnvironmentOptions): EnvironmentOptions {
  return {
    ...(flags.scoring ? { scoring: flags.scoring } : {}),
    ...(flags.db ? { db: flags.db } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    ...(flags.appworldUrl?.length ? { appworldUrl: flags.appworldUrl } : {}),
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
    const sandbox = options.sandbox ?? 'local';
    if (sandbox !== 'local' && sandbox !== 'docker') {
      throw new ConfigError(`--sandbox must be local or docker, got '${sandbox}'`, { code: 'bad-flag' });
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
