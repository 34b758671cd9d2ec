import type { Trajectory } from '@harness-s/core';

/**
 * Failure signatures: how failed attempts failed, as counts per signature (a repair direction, such
 * as `answer-formatting`), so that a failed rescue request can be compared with the validation
 * tasks H0 failed the same way.
 */

/** `now` plus `before` at the discount, signature by signature; undefined when both are. */
export function addSignatures(
  now: Readonly<Record<string, number>> | undefined,
  before: Readonly<Record<string, number>> | undefined,
  discount: number,
): Record<string, number> | undefined {
  if (!now && !before) return undefined;
  const discounted = Object.fromEntries(
    Object.entries(before ?? {}).map(([signature, n]) => [signature, discount * n]),
  );
  return sumSignatures([now, discounted]);
}

/**
 * Failure signatures of a failed attempt: the repair directions its failure shows (e.g.
 * `answer-formatting`, `error-recovery`). The command line gives the environment's built-in
 * failure analysis; any function of the trajectory will do.
 */
export type Diagnose = (trajectory: Trajectory) => Promise<readonly string[]>;

/** Signature counts added up. */
export function sumSignatures(counts: Iterable<Readonly<Record<string, number>> | undefined>): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const count of counts)
    for (const [signature, n] of Object.entries(count ?? {})) sum[signature] = (sum[signature] ?? 0) + n;
  return sum;
}

/** Per task, how many of its failed attempts showed each signature. */
export async function failureSignatures(
  trajectories: readonly Trajectory[],
  diagnose: Diagnose,
): Promise<Map<string, Record<string, number>>> {
  const byTask = new Map<string, Record<string, number>>();
  for (const trajectory of trajectories) {
    if (trajectory.evaluation === null || trajectory.evaluation.success) continue;
    const counts = byTask.get(trajectory.taskId) ?? {};
    byTask.set(trajectory.taskId, counts);
    for (const signature of new Set(await diagnose(trajectory))) counts[signature] = (counts[signature] ?? 0) + 1;
  }
  return byTask;
}

/** Cosine similarity of two count vectors keyed by signature (0 when either is empty). */
export function signatureSimilarity(
  a: Readonly<Record<string, number>>,
  b: Readonly<Record<string, number>> | undefined,
): number {
  if (!b) return 0;
  let dot = 0;
  for (const [signature, count] of Object.entries(a)) dot += count * (b[signature] ?? 0);
  const norm = (vector: Readonly<Record<string, number>>) =>
    Math.sqrt(Object.values(vector).reduce((sum, count) => sum + count * count, 0));
  const denominator = norm(a) * norm(b);
  return denominator > 0 ? dot / denominator : 0;
}
