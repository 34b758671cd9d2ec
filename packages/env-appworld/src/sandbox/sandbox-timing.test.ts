import { afterAll, describe, expect, it, vi } from 'vitest';
import { CodeSandbox, type SandboxOptions } from './code-sandbox.js';
import { SandboxWorkerPool } from './worker-pool.js';

const timeoutMs = 600;
/** The host ends the worker thread 2 s of engine time after the block's own time limit. */
const hardDeadlineMs = timeoutMs + 2_000;

/** Keeps this thread (the host of the sandboxes) busy, as a loaded machine or a long synchronous task would. */
function stallHost(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, message or API call of the host is served meanwhile
  }
}

const pool = new SandboxWorkerPool(2);
/** What the host does before it answers an API call. */
let hostAnswer: () => void = () => undefined;
const options: SandboxOptions = {
  apiNames: { music: ['login'], supervisor: ['complete_task'] },
  now: '2024-06-14T10:00:00',
  limits: { timeoutMs, memoryBytes: 16 * 1024 * 1024, maxApiCallsPerBlock: 5 },
  pool,
  callApi: () => {
    hostAnswer();
    return { access_token: 'token-1' };
  },
};

afterAll(async () => {
  await pool.close();
});

const login = "var token = apis.music.login({ username: 'me', password: 'right' }).access_token;\nprint('Logged in.');";

describe('code sandbox: a slow host does not change what a block does', () => {
  it('does not stop the block or restart the sandbox when the host answers after the hard deadline', async () => {
    const sandbox = await CodeSandbox.create(options);
    // The host's timers run on a clock the test moves: answering the API call takes the host
    // past the hard deadline by its own clock, while the engine itself runs only briefly.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      expect(await sandbox.run("var kept = 'still here';")).toEqual({ output: 'Execution successful.', ok: true });
      hostAnswer = () => vi.advanceTimersByTime(hardDeadlineMs + 300);
      expect(await sandbox.run(login)).toEqual({ output: 'Logged in.', ok: true });
      hostAnswer = () => undefined;
      expect(await sandbox.run('print(kept, token)')).toEqual({ output: 'still here token-1', ok: true });
    } finally {
      hostAnswer = () => undefined;
      vi.useRealTimers();
      sandbox.dispose();
    }
  });

  it('does not count the time the host takes to answer an API call toward the time limit', async () => {
    const sandbox = await CodeSandbox.create(options);
    try {
      await sandbox.run("var kept = 'still here';");
      hostAnswer = () => stallHost(timeoutMs + 300);
      // The loop after the call makes the engine check its deadline many times.
      const outcome = await sandbox.run(`${login}\nvar n = 0;\nfor (var i = 0; i < 200000; i += 1) n += i;`);
      hostAnswer = () => undefined;
      expect(outcome).toEqual({ output: 'Logged in.', ok: true });
      expect(await sandbox.run('print(kept, token, n)')).toEqual({
        output: 'still here token-1 19999900000',
        ok: true,
      });
    } finally {
      hostAnswer = () => undefined;
      sandbox.dispose();
    }
  });

  it('does not stop the block or restart the sandbox while the host thread is stalled past the hard deadline', async () => {
    const sandbox = await CodeSandbox.create(options);
    try {
      expect(await sandbox.run("var kept = 'still here';")).toEqual({ output: 'Execution successful.', ok: true });
      const pending = sandbox.run(login);
      stallHost(hardDeadlineMs + 300);
      expect(await pending).toEqual({ output: 'Logged in.', ok: true });
      expect(await sandbox.run('print(kept, token)')).toEqual({ output: 'still here token-1', ok: true });
    } finally {
      sandbox.dispose();
    }
  });

  it('still stops runaway code that keeps calling APIs, on its own time', async () => {
    const sandbox = await CodeSandbox.create(options);
    try {
      const outcome = await sandbox.run(
        'var refused = 0;\nwhile (true) { try { apis.music.login({}); } catch (error) { refused += 1; } }',
      );
      expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
      expect(outcome.output).toMatch(/TimeoutError: the code block ran longer than 0.6 s and was stopped\.$/);
      const after = await sandbox.run('print(refused > 0)');
      expect(after).toEqual({ output: 'true', ok: true });
    } finally {
      sandbox.dispose();
    }
  });
});
