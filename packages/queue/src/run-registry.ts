import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keyPrefix } from './names.js';

/** The Redis hash of the runs whose queues want workers: queue name -> RunEntry (JSON). */
export const runRegistryKey = `${keyPrefix}:runs`;

/**
 * A training run announcing its queue, so that `harness-s worker` processes find it without being
 * told its name. The producer refreshes `updatedAt` while it waits for results (which also puts the
 * entry back after a Redis restart) and marks the entry `ended` when the run ends: workers then
 * leave the queue and remove what their own presence wrote to it.
 */
export const RunEntry = z.strictObject({
  queueName: z.string().min(1),
  /** Only workers of this environment serve the queue. */
  env: z.string().min(1),
  runId: z.string(),
  /** Milliseconds since the epoch, on the producer's clock. */
  updatedAt: z.number(),
  /** The run is over and its queue removed. */
  ended: z.boolean().optional(),
});
export type RunEntry = z.infer<typeof RunEntry>;

/** An entry not refreshed for this long belongs to a producer that died (or ended): workers leave its queue. */
export const staleRunAfterMs = 60_000;

/** Entries older than this are deleted by whoever reads the registry. */
const forgetRunAfterMs = 10 * 60_000;

export async function announceRun(connection: Redis, entry: RunEntry): Promise<void> {
  await connection.hset(runRegistryKey, entry.queueName, JSON.stringify(entry));
}

/** The announced runs refreshed within `staleRunAfterMs` (ended ones included); malformed entries are skipped. */
export async function listRuns(connection: Redis, now = Date.now()): Promise<RunEntry[]> {
  const entries = await connection.hgetall(runRegistryKey);
  const runs: RunEntry[] = [];
  const forgotten: string[] = [];
  for (const [queueName, text] of Object.entries(entries)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = RunEntry.safeParse(value);
    if (!parsed.success) continue;
    const age = now - parsed.data.updatedAt;
    if (age <= staleRunAfterMs) runs.push(parsed.data);
    else if (age > forgetRunAfterMs) forgotten.push(queueName);
  }
  if (forgotten.length > 0) await connection.hdel(runRegistryKey, ...forgotten);
  return runs.sort((a, b) => a.queueName.localeCompare(b.queueName));
}
