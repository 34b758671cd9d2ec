import type Docker from 'dockerode';

/** A process table this close to its limit counts as full. */
const fullTableMargin = 2;
/** Memory this full counts as full: the runtime cannot start another process in it. */
const fullMemoryShare = 0.97;

const mib = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;

/** How long to wait before each new reading when one was inconclusive. */
const settleMs = [250, 500, 1000];

/**
 * Why a container can no longer run commands, asked of the daemon from outside it, or null: it
 * stopped, its process table is full (a fork bomb that outlived its command), or its memory is full
 * (files written to its in-memory file systems count against it, and stay until a reset).
 *
 * A reading the daemon could not give whole (a busy daemon answers now and then with empty
 * statistics) is taken again, up to three times within two seconds: after that, null. So is a
 * daemon that does not answer: that is an infrastructure error, which the next exec reports.
 */
export async function containerUnusableReason(container: Docker.Container): Promise<string | null> {
  for (const wait of settleMs) {
    const reading = await readHealth(container);
    if (reading !== inconclusive) return reading;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const last = await readHealth(container);
  return last === inconclusive ? null : last;
}

const inconclusive = Symbol('inconclusive');

async function readHealth(container: Docker.Container): Promise<string | null | typeof inconclusive> {
  try {
    const info = await container.inspect();
    if (!info.State.Running) {
      return `its container is not running any more (${info.State.Status}, exit code ${info.State.ExitCode})`;
    }
    const stats = await container.stats({ stream: false, 'one-shot': true });
    const { current, limit } = stats.pids_stats ?? {};
    if (current !== undefined && limit !== undefined && limit > 0 && current >= limit - fullTableMargin) {
      return `its process table is full (${current} of ${limit} processes: a fork bomb, or processes left running in the background)`;
    }
    // As `docker stats` counts it: without the file pages the kernel could drop.
    const memory = stats.memory_stats as { usage?: number; limit?: number; stats?: Record<string, number> } | undefined;
    if (!memory?.usage || !memory.limit) return inconclusive;
    const reclaimable = memory.stats?.['inactive_file'] ?? memory.stats?.['total_inactive_file'] ?? 0;
    const used = memory.usage - reclaimable;
    if (used >= memory.limit * fullMemoryShare) {
      return `its memory is full (${mib(used)} of ${mib(memory.limit)}: files written to /tmp, /root, the repository and its other in-memory file systems count against it)`;
    }
    return null;
  } catch {
    return inconclusive;
  }
}
