import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keyPrefix } from './names.js';

/** The Redis hash of the runs whose queues want workers: queue name -> RunEntry (JSON). */
export const runRegistryKey = `${keyPrefix}:runs`;

/**
 * A training run announcing its queue, so that `harness-s worker` processes find it without being
 * told its name. The producer refreshes `updatedAt` while it waits for results (which also puts the
 * entry back after a Redis restart) and removes the entry when the run ends.
 */
export const RunEntry = z.strictObject({
  queueName: z.string().min(1),
  /** Only workers of this environment serve the queue. */
  env: z.string().min(1),
  runId: z.string(),
  /** Milliseconds since the epoch, on the producer's clock. */
  updatedAt: z.number(),
});
export type RunEntry = z.infer<typeof RunEntry>;

/** An entry not refreshed for this long belongs to a producer that died; workers leave its queue. */
export const staleRunAfterMs = 60_000;

export async function announceRun(connection: Redis, entry: RunEntry): Promise<void> {
  await connection.hset(runRegistryKey, entry.queueName, JSON.stringify(entry));
}

export async function withdrawRun(connection: Redis, queueName: string): Promise<void> {
  await connection.hdel(runRegistryKey, queueName);
}

/** The announced runs refreshed within `staleRunAfterMs`; malformed entries are skipped. */
export async function listRuns(connection: Redis, now = Date.now()): Promise<RunEntry[]> {
  const entries = await connection.hgetall(runRegistryKey);
  const runs: RunEntry[] = [];
  for (const text of Object.values(entries)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = RunEntry.safeParse(value);
    if (parsed.success && now - parsed.data.updatedAt <= staleRunAfterMs) runs.push(parsed.data);
  }
  return runs.sort((a, b) => a.queueName.localeCompare(b.queueName));
}
