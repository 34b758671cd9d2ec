import { randomBytes } from 'node:crypto';

/**
 * Everything a backend makes on a server (databases, schemas, roles, users) is named
 * `hs_dbbench_<run id>` or `hs_dbbench_<run id>_<part>`, so `harness-s cleanup` can find what a killed
 * run left behind and touch nothing else. Run ids are 8 lower-case letters and digits: names stay
 * within MySQL's 32-character user names and need no quoting anywhere.
 */
export const dbbenchNamePrefix = 'hs_dbbench_';

const runIdPattern = /^[a-z0-9]{8}$/;

/** A fresh random run id. */
export function newRunId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/** Checks a run id given by a caller. */
export function checkRunId(runId: string): string {
  if (!runIdPattern.test(runId)) throw new Error(`run id '${runId}' must be 8 lower-case letters or digits`);
  return runId;
}

/** `hs_dbbench_<run>`: the run itself (its database on PostgreSQL, its lock on MySQL). */
export const runObjectName = (runId: string): string => `${dbbenchNamePrefix}${runId}`;

/** `hs_dbbench_<run>_<part>`: one object of the run. */
export const runPartName = (runId: string, part: string | number): string => `${runObjectName(runId)}_${part}`;

/** The run id in an object's name, or null when the name is not one of ours. */
export function runIdOf(name: string): string | null {
  if (!name.startsWith(dbbenchNamePrefix)) return null;
  const rest = name.slice(dbbenchNamePrefix.length);
  const runId = rest.slice(0, 8);
  const after = rest.slice(8);
  return runIdPattern.test(runId) && (after === '' || after.startsWith('_')) ? runId : null;
}

/** A LIKE pattern for every name of the run (or of every run), with `_` escaped. */
export function namePattern(runId?: string): string {
  const literal = (text: string) => text.replaceAll('_', '\\_');
  return runId === undefined ? `${literal(dbbenchNamePrefix)}%` : `${literal(runObjectName(runId))}%`;
}

/** A password for a per-episode role or user. */
export const newPassword = (): string => randomBytes(18).toString('base64url');
