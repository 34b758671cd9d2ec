import { readFileSync } from 'node:fs';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './errors.js';

/** The file a run folder's writer holds while it writes: two writers of one run would corrupt it. */
export const runLockFile = 'run.lock';

interface LockRecord {
  pid: number;
  host: string;
  since: string;
}

/**
 * Whether a process of this machine is alive: one this user may not signal counts as alive, and a
 * killed one its parent has not reaped yet (a zombie, as a killed process of a container whose first
 * process reaps nothing stays) does not.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Linux: the state follows the command's closing parenthesis in /proc/PID/stat.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

async function readLock(path: string): Promise<LockRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(path, 'utf8')) as Partial<LockRecord>;
    return typeof record.pid === 'number' && typeof record.host === 'string'
      ? { pid: record.pid, host: record.host, since: String(record.since ?? '') }
      : undefined;
  } catch {
    // Torn by a kill as it was written, or gone since: no live holder.
    return undefined;
  }
}

/** How many holders of this process hold each lock file: the last release removes it. */
const holders = new Map<string, number>();

/**
 * Takes a run folder for this process before it writes there, so a second process resuming the same
 * run (or a second `--resume` typed by mistake) is refused instead of interleaving its lines with
 * the first's. A lock whose process is gone (killed, crashed) is taken over; one held by this
 * process already is taken again, and freed by the last of its holders' releases (each releases once).
 * The folder exists.
 */
export async function lockRunFolder(dir: string): Promise<{ release(): Promise<void> }> {
  const path = join(dir, runLockFile);
  const mine: LockRecord = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let taken = false;
  for (let attempt = 0; attempt < 3 && !taken; attempt += 1) {
    try {
      await writeFile(path, JSON.stringify(mine), { flag: 'wx' });
      taken = true;
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await readLock(path);
    if (held && held.host === mine.host && held.pid === mine.pid) {
      taken = true;
      break;
    }
    if (held && (held.host !== mine.host || processAlive(held.pid)))
      throw new ConfigError(
        `${dir} is being written by another process (pid ${held.pid}${held.host !== mine.host ? ` on ${held.host}` : ''}, since ${held.since}); two processes writing one run would corrupt it: wait for that one to end or stop it${held.host !== mine.host ? `, or remove ${path} if it is gone` : ''}`,
        { code: 'run-locked' },
      );
    // The holder is gone: its lock is stale.
    await unlink(path).catch(() => undefined);
  }
  if (!taken)
    throw new ConfigError(`${dir}: could not take ${runLockFile}; another process keeps taking it`, {
      code: 'run-locked',
    });
  holders.set(path, (holders.get(path) ?? 0) + 1);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      const left = (holders.get(path) ?? 1) - 1;
      if (left > 0) {
        holders.set(path, left);
        return;
      }
      holders.delete(path);
      const held = await readLock(path);
      if (held?.pid === mine.pid && held.host === mine.host) await unlink(path).catch(() => undefined);
    },
  };
}
