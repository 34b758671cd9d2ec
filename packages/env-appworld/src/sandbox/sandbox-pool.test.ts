import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeSandbox, type SandboxOptions } from './code-sandbox.js';
import { preludeSource } from './prelude.js';
import { SandboxWorker } from './sandbox-worker.js';
import { defaultMaxIdleEngineBytes, SandboxWorkerPool } from './worker-pool.js';
import { engineMemoryCap } from './worker-protocol.js';

let pool = new SandboxWorkerPool(2);
afterEach(async () => {
  await pool.close();
  pool = new SandboxWorkerPool(2);
});

/** Sandbox options on the current pool; `answer` is the host's reply to every API call. */
function optionsWith(answer: () => unknown): SandboxOptions {
  return {
    apiNames: { music: ['login'], supervisor: ['complete_task'] },
    now: '2024-06-14T10:00:00',
    limits: { timeoutMs: 600, memoryBytes: 16 * 1024 * 1024 },
    pool,
    callApi: answer,
  };
}

/** The promise's value, or a failure naming `what` if it has not settled within `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('sandbox worker pool: a worker serves one sandbox at a time', () => {
  it('lends a worker given back twice to one borrower only', () => {
    const worker = pool.acquire();
    pool.release(worker);
    pool.release(worker);
    expect(pool.inUse).toBe(0);
    const first = pool.acquire();
    const second = pool.acquire();
    // Compared by identity: a deep comparison of two workers walks their shared memory.
    expect(second === first).toBe(false);
    expect(pool.inUse).toBe(2);
    pool.discard(first);
    pool.discard(first);
    pool.release(second);
    expect(pool.inUse).toBe(0);
    expect(pool.liveWorkers).toBe(1);
  });

  it('does not count an idle worker that died as alive', async () => {
    const worker = pool.acquire();
    pool.release(worker);
    await worker.terminate();
    const next = pool.acquire();
    expect(next === worker).toBe(false);
    expect(pool.liveWorkers).toBe(1);
    pool.release(next);
  });

  it('keeps the worker of a sandbox closed during a block until the block ends, and gives it to no one else meanwhile', async () => {
    const first = await CodeSandbox.create(optionsWith(() => ({ access_token: 'first' })));
    await first.run("var secret = 'first episode';");
    const pending = first.run(
      "var token = apis.music.login({ username: 'me', password: 'right' }).access_token;\nprint(token, secret);",
    );
    first.dispose();
    expect(pool.inUse).toBe(1);
    const second = await within(5_000, 'starting the next sandbox', CodeSandbox.create(optionsWith(() => ({}))));
    try {
      // The block started before the close finishes in its own engine.
      expect(await within(5_000, 'the block of the closed sandbox', pending)).toEqual({
        output: 'first first episode',
        ok: true,
      });
      expect(await second.run('print(typeof secret, typeof token)')).toEqual({
        output: 'undefined undefined',
        ok: true,
      });
      await second.run("var mine = 'second episode';");
      // The first sandbox's worker, back in the pool now, is lent to a third sandbox, not to the second.
      expect(pool.inUse).toBe(1);
      const third = await CodeSandbox.create(optionsWith(() => ({})));
      expect(await third.run('print(typeof secret, typeof mine)')).toEqual({ output: 'undefined undefined', ok: true });
      third.dispose();
      expect(await second.run('print(mine)')).toEqual({ output: 'second episode', ok: true });
    } finally {
      second.dispose();
    }
    expect(pool.inUse).toBe(0);
  });

  it('answers a block before a fresh engine asked for meanwhile replaces its engine', async () => {
    const worker = SandboxWorker.spawn();
    const settings = {
      prelude: preludeSource({ music: ['login'] }, '2024-06-14T10:00:00'),
      memoryBytes: 16 * 1024 * 1024,
      stackBytes: 512 * 1024,
      maxOutputChars: 1_000,
    };
    try {
      await worker.init(settings);
      const running = worker.run(
        'var token = apis.music.login({}).access_token;\nprint(token);',
        '<code>',
        { timeoutMs: 600, killAfterMs: 2_600, maxApiCalls: 5 },
        () => JSON.stringify({ ok: true, value: { access_token: 'token-1' } }),
      );
      worker.warm(settings);
      expect(await within(5_000, 'the block', running)).toMatchObject({ kind: 'finished', printed: 'token-1\n' });
      await within(5_000, 'the fresh engine', worker.init(settings));
      const after = await worker.run(
        'print(typeof token)',
        '<code>',
        { timeoutMs: 600, killAfterMs: 2_600, maxApiCalls: 5 },
        () => '',
      );
      expect(after).toMatchObject({ kind: 'finished', printed: 'undefined\n' });
    } finally {
      await worker.terminate();
    }
  });
});

describe('sandbox worker pool: memory', () => {
  /** Code that holds on to 1 MB chunks until the engine runs out of memory, and catches that. */
  const hoard =
    'var held = [];\ntry { for (var i = 0; i < 100; i += 1) held.push(new Uint8Array(1024 * 1024)); } catch (error) { print(String(error)); }';

  it('keeps an engine within its memory cap, and replaces the worker of a block that reached it', async () => {
    const sandbox = await CodeSandbox.create(optionsWith(() => ({})));
    const worker = (sandbox as unknown as { worker: SandboxWorker }).worker;
    // The code caught the failure, but its engine's memory is full: the block fails, the worker goes.
    const outcome = await sandbox.run(hoard);
    expect(outcome).toMatchObject({ ok: false, failure: 'memory' });
    expect(outcome.output).toMatch(/^InternalError: out of memory\nExecution failed\. Traceback:\nMemoryError: /);
    expect(worker.engineMemoryBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(worker.engineMemoryBytes).toBeLessThanOrEqual(engineMemoryCap(16 * 1024 * 1024));
    expect((sandbox as unknown as { worker: SandboxWorker }).worker === worker).toBe(false);
    expect(worker.alive).toBe(false);
    expect(pool.liveWorkers).toBe(1);
    sandbox.dispose();
  });

  it('ends a worker given back whose engine grew, so it does not keep what a block took', async () => {
    pool = new SandboxWorkerPool(2, 20 * 1024 * 1024);
    const sandbox = await CodeSandbox.create(optionsWith(() => ({})));
    const worker = (sandbox as unknown as { worker: SandboxWorker }).worker;
    // 16 MB kept, within the 16 MB heap: the block succeeds and its engine keeps the memory it grew to.
    const keep = 'var held = [1, 2, 3, 4].map(() => new Uint8Array(4 * 1024 * 1024).fill(1)); print(held.length)';
    expect(await sandbox.run(keep)).toEqual({ output: '4', ok: true });
    expect(worker.engineMemoryBytes).toBeGreaterThan(20 * 1024 * 1024);
    sandbox.dispose();
    expect(pool.liveWorkers).toBe(0);
    const next = await CodeSandbox.create(optionsWith(() => ({})));
    expect((next as unknown as { worker: SandboxWorker }).worker === worker).toBe(false);
    next.dispose();
    expect(pool.liveWorkers).toBe(1);
  });

  it('keeps idle workers whose engines stayed small', async () => {
    expect(defaultMaxIdleEngineBytes).toBeGreaterThanOrEqual(engineMemoryCap(0));
    const sandbox = await CodeSandbox.create(optionsWith(() => ({})));
    expect(await sandbox.run("var small = 'x'.repeat(1000); print(small.length)")).toEqual({
      output: '1000',
      ok: true,
    });
    sandbox.dispose();
    expect(pool.liveWorkers).toBe(1);
  });
});

describe('closing the pool', () => {
  it('keeps a process that awaits it alive until its workers have ended', async () => {
    const program = fileURLToPath(new URL('./__fixtures__/close-at-exit.ts', import.meta.url));
    // A worker's last answer could unreference it while it was being terminated: a race, so five runs.
    for (let run = 0; run < 5; run += 1) {
      const child = spawn(process.execPath, ['--import', 'tsx', program], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect({ run, code, output: output.trim() }).toEqual({ run, code: 0, output: 'closed' });
    }
  }, 60_000);
});
