import { ConfigError, type Environment } from '@harness-s/core';
import { createAppWorldEnvironment, createAppWorldRemoteEnvironment } from '@harness-s/env-appworld';
import { cleanupDbbench, createDbbenchEnvironment, type DbbenchScoring, redactUrl } from '@harness-s/env-dbbench';
import {
  type CleanedContainer,
  cleanupSwegym,
  createSwegymEnvironment,
  type SandboxKind,
  sandboxFor,
} from '@harness-s/env-swegym';
import type { EnvironmentEntry } from './environment-entry.js';

const dbbench: EnvironmentEntry = {
  name: 'dbbench',
  options: ['scoring', 'db'],
  create(options) {
    const scoring = options.scoring ?? 'v0.2';
    if (scoring !== 'v0.2' && scoring !== 'normalized') {
      throw new ConfigError(`--scoring must be v0.2 or normalized, got '${scoring}'`, { code: 'bad-flag' });
    }
    return createDbbenchEnvironment({
      scoring: scoring as DbbenchScoring,
      ...(options.db ? { db: options.db } : {}),
    }) as unknown as Environment;
  },
  async cleanup(flags) {
    if (!flags.db) {
      throw new ConfigError('cleanup --env dbbench needs --db URL (postgres://... or mysql://...)', {
        code: 'missing-cleanup-flag',
      });
    }
    const report = await cleanupDbbench(flags.db);
    return [
      ...report.removed.map((run) => `removed run ${run.runId}: ${run.objects.join(', ')}`),
      ...report.active.map((runId) => `left run ${runId} alone: it is still connected`),
      ...(report.removed.length === 0 && report.active.length === 0 ? ['nothing to clean'] : []),
    ];
  },
  // An embedded database ends with the process; a server keeps what a killed run made.
  leftovers: ({ db }) =>
    db && !db.startsWith('pglite:')
      ? `\`harness-s cleanup --env dbbench --db ${redactUrl(db)}\` removes leftover databases and roles`
      : undefined,
};

const swegym: EnvironmentEntry = {
  name: 'swegym',
  options: ['sandbox', 'unconfined'],
  create(options) {
    const { actionsFrom, unconfined } = options;
    const sandbox = options.sandbox as SandboxKind | undefined;
    if (sandbox !== undefined && sandbox !== 'local' && sandbox !== 'docker') {
      throw new ConfigError(`--sandbox must be local or docker, got '${sandbox}'`, { code: 'bad-flag' });
    }
    const settings = {
      ...(sandbox ? { sandbox } : {}),
      ...(actionsFrom ? { actionsFrom } : {}),
      ...(unconfined ? { unconfined } : {}),
    };
    try {
      // The package's rule: plans run locally by default, a model's commands in Docker.
      sandboxFor(settings);
    } catch (error) {
      if (error instanceof ConfigError && error.code === 'unconfined-actions') {
        throw new ConfigError(
          'swegym: --sandbox local runs every command on this machine, unconfined, and this policy writes its own commands; use --sandbox docker (no network, resource limits), or add --unconfined to run them here anyway',
          { code: 'unconfined-actions' },
        );
      }
      throw error;
    }
    return createSwegymEnvironment(settings) as unknown as Environment;
  },
  async cleanup(flags) {
    const report = await cleanupSwegym({
      ...(flags.run ? { runLabel: flags.run } : {}),
      includeLive: flags.all === true,
    });
    return [
      ...(report.dockerReachable ? [] : ['docker is not reachable: no containers looked for']),
      ...report.removedContainers.map(
        (container) =>
          `removed container ${container.id.slice(0, 12)} (run ${container.run}, owner pid ${container.ownerPid})`,
      ),
      ...(report.removedDirectories ? [`removed ${report.removedDirectories} local sandbox directories`] : []),
      ...liveRuns(report.liveContainers),
      ...(report.removedContainers.length === 0 && report.removedDirectories === 0
        ? [
            report.dockerReachable
              ? `nothing ${report.liveContainers.length ? 'else ' : ''}to clean`
              : 'no local sandbox directories to clean',
          ]
        : []),
    ];
  },
  leftovers: '`harness-s cleanup --env swegym` removes leftover containers',
  slow: true,
};

const appworld: EnvironmentEntry = {
  name: 'appworld',
  options: ['appworldUrl'],
  create: (options) =>
    (options.appworldUrl?.length
      ? createAppWorldRemoteEnvironment({ urls: options.appworldUrl })
      : createAppWorldEnvironment()) as unknown as Environment,
};

/** The environments this package ships, in `--env` order. */
export const builtInEnvironments: readonly EnvironmentEntry[] = [dbbench, swegym, appworld];

/** One line per live run whose containers cleanup left alone, as DBBench's cleanup says of its runs. */
function liveRuns(containers: readonly CleanedContainer[]): string[] {
  const runs = new Map<string, CleanedContainer[]>();
  for (const container of containers) {
    const key = `${container.run}\0${container.ownerHost ?? ''}\0${container.ownerPid}`;
    runs.set(key, [...(runs.get(key) ?? []), container]);
  }
  return [...runs.values()].map((held) => {
    const [{ run, ownerPid, ownerHost }] = held as [CleanedContainer];
    const owner = ownerHost
      ? `a process on ${ownerHost}, which cannot be checked from here`
      : ownerPid === null
        ? 'no process it names (its owner label is missing), so it cannot be judged stale'
        : `pid ${ownerPid}, still running`;
    return `left run ${run} alone: ${held.length} container${held.length === 1 ? '' : 's'}, owned by ${owner} (--all removes them too)`;
  });
}
