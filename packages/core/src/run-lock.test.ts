import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockRunFolder, processAlive, runLockFile } from './run-lock.js';
import { RunStore } from './run-store.js';
import { TrainStore } from './training/train-store.js';

/** A live process of this machine that is not this one, stopped by the returned function. */
function otherProcess(): { pid: number; stop: () => void } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  return { pid: child.pid as number, stop: () => child.kill('SIGKILL') };
}

const lockOf = (pid: number, host = hostname()) => JSON.stringify({ pid, host, since: '2026-01-01T00:00:00.000Z' });

describe('the lock of a run folder', () => {
  it('refuses a second writer while the first lives, and takes over once it is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-lock-'));
    const other = otherProcess();
    try {
      await writeFile(join(dir, runLockFile), lockOf(other.pid));
      await expect(lockRunFolder(dir)).rejects.toThrow(
        `${dir} is being written by another process (pid ${other.pid}, since 2026-01-01T00:00:00.000Z)`,
      );
    } finally {
      other.stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lock = await lockRunFolder(dir);
    expect(JSON.parse(await readFile(join(dir, runLockFile), 'utf8')).pid).toBe(process.pid);
    // The same process may take it again (a run continued in the process that began it); the folder
    // stays taken until the last of its holders lets go, each release counting once.
    const again = await lockRunFolder(dir);
    await again.release();
    await again.release();
    expect(existsSync(join(dir, runLockFile))).toBe(true);
    await lock.release();
    expect(existsSync(join(dir, runLockFile))).toBe(false);
  });

  it('takes over the lock of a killed process its parent has not reaped (a zombie)', async () => {
    // `sleep 0.1` ends as a child of a process that never reaps it: a zombie until that one ends.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (data) => resolve(String(data)))),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Signalling it still works, yet it is gone.
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(processAlive(zombie)).toBe(false);
      const dir = await mkdtemp(join(tmpdir(), 'run-lock-'));
      await writeFile(join(dir, runLockFile), lockOf(zombie));
      const lock = await lockRunFolder(dir);
      expect(JSON.parse(await readFile(join(dir, runLockFile), 'utf8')).pid).toBe(process.pid);
      await lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
    expect(processAlive(process.pid)).toBe(true);
  });

  it('refuses a lock of another machine, saying how to clear it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-lock-'));
    await writeFile(join(dir, runLockFile), lockOf(1, 'elsewhere'));
    await expect(lockRunFolder(dir)).rejects.toThrow(
      `pid 1 on elsewhere, since 2026-01-01T00:00:00.000Z); two processes writing one run would corrupt it: wait for that one to end or stop it, or remove ${join(dir, runLockFile)} if it is gone`,
    );
  });

  it('is taken by an evaluation run folder until it closes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-lock-eval-'));
    const store = await RunStore.create(dir, {});
    expect(JSON.parse(await readFile(join(dir, runLockFile), 'utf8')).pid).toBe(process.pid);
    await store.close();
    expect(existsSync(join(dir, runLockFile))).toBe(false);
    const other = otherProcess();
    try {
      await writeFile(join(dir, runLockFile), lockOf(other.pid));
      await expect(RunStore.create(dir, {})).rejects.toThrow(/is being written by another process/);
    } finally {
      other.stop();
    }
  });

  it('keeps a training run from being resumed twice at once, before anything is cut back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-lock-train-'));
    const { store } = await TrainStore.open(dir, { command: 'train' }, false);
    await writeFile(join(dir, 'trajectories.jsonl'), '{"training":{"step":3}}\n');
    await writeFile(join(dir, 'checkpoint.json'), '{}');
    const other = otherProcess();
    try {
      await writeFile(join(dir, runLockFile), lockOf(other.pid));
      await expect(TrainStore.open(dir, { command: 'train' }, true)).rejects.toThrow(
        /is being written by another process/,
      );
      // Nothing was read or cut back.
      expect(await readFile(join(dir, 'trajectories.jsonl'), 'utf8')).toBe('{"training":{"step":3}}\n');
    } finally {
      other.stop();
    }
    // The run's end frees the folder.
    await writeFile(join(dir, runLockFile), lockOf(process.pid));
    await store.close();
    expect(existsSync(join(dir, runLockFile))).toBe(false);
  });
});
