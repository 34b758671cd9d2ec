import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchHook, checkStrayHook } from './on-batch.js';

describe('--on-batch', () => {
  it("refuses to continue a run while the stopped run's hand-over still runs, and forgets one that ended", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'on-batch-'));
    await mkdir(join(dir, 'batches'));
    const stray = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'batches', 'on-batch.json'), JSON.stringify({ pid: stray.pid, step: 3 }));
      await expect(checkStrayHook(dir)).rejects.toThrow(
        `the --on-batch command of the stopped run (pid ${stray.pid}, step 3) is still running, and may still hand step 3 over`,
      );
    } finally {
      stray.kill('SIGKILL');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await checkStrayHook(dir);
    expect(existsSync(join(dir, 'batches', 'on-batch.json'))).toBe(false);

    // The hook's shell is gone, but a command it started (in its process group) still runs.
    const shell = spawn(
      'sh',
      ['-c', `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60_000)" & echo started`],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    await new Promise((resolve) => shell.stdout.once('data', resolve));
    await new Promise((resolve) => shell.once('exit', resolve));
    try {
      await writeFile(join(dir, 'batches', 'on-batch.json'), JSON.stringify({ pid: shell.pid, step: 4 }));
      await expect(checkStrayHook(dir)).rejects.toThrow(
        `stop it with every process it started (kill -- -${shell.pid})`,
      );
    } finally {
      process.kill(-(shell.pid as number), 'SIGKILL');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await checkStrayHook(dir);
  });

  it('notes the running command while it runs, says so when the run is interrupted, and fails with the way to resume', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'on-batch-'));
    await mkdir(join(dir, 'batches'));
    const lines: string[] = [];
    const controller = new AbortController();
    const slow = batchHook(
      `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 1500)"`,
      dir,
      (line) => lines.push(line),
      controller.signal,
    );
    const running = slow({ path: join(dir, 'batches', 'step-1.jsonl'), step: 1, examples: 4 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(existsSync(join(dir, 'batches', 'on-batch.json'))).toBe(true);
    controller.abort();
    await running;
    expect(lines.at(-1)).toMatch(/^waiting for --on-batch \(pid \d+\) to end; Ctrl-C again exits at once/);
    expect(existsSync(join(dir, 'batches', 'on-batch.json'))).toBe(false);

    const failing = batchHook('exit 3', dir, () => undefined, new AbortController().signal);
    await expect(failing({ path: 'x', step: 2, examples: 1 })).rejects.toThrow(
      `--on-batch "exit 3" exited with code 3 at step 2 (its output, if any, is above); once its cause is fixed, the run continues from its last checkpoint with --resume ${dir}, which samples step 2 again and hands it over`,
    );
  });

  it('stops a command still running after the timeout, and the run with it; one that ends in time passes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'on-batch-'));
    await mkdir(join(dir, 'batches'));
    const lines: string[] = [];
    const hang = `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60000)"`;
    const started = Date.now();
    const hook = batchHook(hang, dir, (line) => lines.push(line), new AbortController().signal, 300);
    await expect(hook({ path: 'x', step: 4, examples: 2 })).rejects.toMatchObject({
      code: 'on-batch-timeout',
      message: expect.stringMatching(
        /did not end within --on-batch-timeout 0\.3 s and was stopped at step 4; once its cause is fixed, the run continues .* --resume/,
      ),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(lines.at(-1)).toMatch(/^--on-batch \(pid \d+\) still runs after 0\.3 s at step 4: stopping it$/);
    expect(existsSync(join(dir, 'batches', 'on-batch.json'))).toBe(false);
    const quick = batchHook('exit 0', dir, () => undefined, new AbortController().signal, 5000);
    await expect(quick({ path: 'x', step: 5, examples: 2 })).resolves.toBeUndefined();
  });
});
