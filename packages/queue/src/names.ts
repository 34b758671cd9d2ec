import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';

/** The Redis key prefix of every queue and record this package writes. */
export const keyPrefix = 'harness-s';

/**
 * The queue of one training run, derived from its folder so that runs sharing a Redis never mix
 * and a resumed run finds its own queue again: a readable part from the folder's name and a hash
 * of its absolute path. BullMQ forbids `:` in queue names; this name has none.
 */
export function queueNameForRun(runDir: string): string {
  const absolute = resolve(runDir);
  const readable = basename(absolute)
    .replaceAll(/[^A-Za-z0-9._-]+/g, '-')
    .slice(0, 48);
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 12);
  return `run-${readable || 'root'}-${hash}`;
}

/**
 * The BullMQ job id of an attempt. Job ids must not contain `:` nor look like integers, and
 * attempt ids do (`3:dev-7#h0#0`), so the id is the attempt id percent-encoded behind a letter:
 * one job per attempt, the same across resumes and re-enqueues.
 */
export function jobIdForAttempt(attemptId: string): string {
  return `a${encodeURIComponent(attemptId)}`;
}

/** The attempt id back from a job id made by `jobIdForAttempt`. */
export function attemptIdOfJob(jobId: string): string {
  return decodeURIComponent(jobId.slice(1));
}
