import { ConfigError } from '@harness-s/core';
import { cleanupDbbench } from '@harness-s/env-dbbench';
import { cleanupSwegym } from '@harness-s/env-swegym';

export interface CleanupFlags {
  env: string;
  /** dbbench: the server to clean, e.g. `postgres://user@host:5432/db`. */
  db?: string;
  /** swegym: only the containers of this run label. */
  run?: string;
  /** swegym: also containers of runs still alive on this machine. */
  all?: boolean;
}

/** One environment's cleanup: removes what killed runs left behind; returns report lines. */
type Cleaner = (flags: CleanupFlags) => Promise<string[]>;

const cleaners: Record<string, Cleaner> = {
  dbbench: async (flags) => {
    if (!flags.db) {
      throw new ConfigError('cleanup --env dbbench needs --db URL (postgres://... or mysql://...)', {
        code: 'bad-flag',
      });
    }
    const report = await cleanupDbbench(flags.db);
    return [
      ...report.removed.map((run) => `removed run ${run.runId}: ${run.objects.join(', ')}`),
      ...report.active.map((runId) => `left run ${runId} alone: it is still connected`),
      ...(report.removed.length === 0 && report.active.length === 0 ? ['nothing to clean'] : []),
    ];
  },
  swegym: async (flags) => {
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
      ...(report.removedContainers.length === 0 && report.removedDirectories === 0 ? ['nothing to clean'] : []),
    ];
  },
};

/** `harness-s cleanup`: removes what runs killed before they could clean up left behind. */
export async function runCleanup(
  flags: CleanupFlags,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<string[]> {
  const cleaner = cleaners[flags.env];
  if (!cleaner) {
    throw new ConfigError(`cleanup: unknown --env '${flags.env}'; available: ${Object.keys(cleaners).join(', ')}`, {
      code: 'unknown-env',
    });
  }
  const lines = await cleaner(flags);
  for (const line of lines) print(line);
  return lines;
}
