import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../api/definition.js';
import { createAppWorldEnvironment } from '../environment.js';
import { CodeSandbox, checkSandboxLimits, minWorkerHeapBytes, type SandboxOptions } from './code-sandbox.js';
import { SandboxWorkerPool } from './worker-pool.js';

const megabyte = 1024 * 1024;
const pool = new SandboxWorkerPool(2);
afterAll(async () => {
  await pool.close();
});

/** API calls that reached the host. */
const calls: string[] = [];
function optionsWith(limits: SandboxOptions['limits']): SandboxOptions {
  return {
    apiNames: { music: ['login'] },
    now: '2024-06-14T10:00:00',
    limits: { timeoutMs: 5_000, ...limits },
    pool,
    callApi: (_app, api, args) => {
      calls.push(api);
      if ((args as { password?: string }).password !== 'right') throw new ApiError(401, 'Invalid credentials.');
      return { access_token: 'token-1' };
    },
  };
}

const wrongLogin = "var result = apis.music.login({ username: 'me', password: 'wrong' });";
const unauthorized =
  'Execution failed. Traceback:\n  File "<code>", line 1, in <module>\n' +
  `    ${wrongLogin}\n` +
  'Exception: Response status code is 401: {"message": "Invalid credentials."}';

/**
 * An error whose name, message and stack each read as the same 24 MB string: one string in the
 * engine's memory, which a worker that copied it out whole would hold three times.
 */
const heavyError = [
  "var text = 'x'.repeat(24 * 1024 * 1024);",
  'var error = new Error();',
  "for (var key of ['name', 'message', 'stack']) Object.defineProperty(error, key, { get() { return text; } });",
  'throw error;',
].join('\n');

describe("code sandbox: the worker thread's own JavaScript heap is bounded", () => {
  it('reads only what its limits keep of long strings out of the engine: a small heap is enough for them', {
    timeout: 60_000,
  }, async () => {
    const sandbox = await CodeSandbox.create(
      optionsWith({ memoryBytes: 64 * megabyte, workerHeapBytes: 32 * megabyte }),
    );
    try {
      await sandbox.run("var kept = 'before';");
      const workers = pool.liveWorkers;
      const error = await sandbox.run(heavyError);
      expect(error).toMatchObject({ ok: false, failure: 'exception' });
      expect(error.output).toMatch(
        /^Execution failed\. Traceback:\nx{200}\.\.\. \[name truncated: 25165624 more characters\]: x{20000}\.\.\. \[message truncated: 25145824 more characters\]$/,
      );
      const printed = await sandbox.run('print(text)');
      expect(printed.output).toMatch(/^x{20000}\[output truncated: 25145825 more characters\]$/);
      const thrownString = await sandbox.run('throw text;');
      expect(thrownString.output).toMatch(
        /^Execution failed\. Traceback:\nError: thrown value: x{19986}\.\.\. \[message truncated: 25145838 more characters\]$/,
      );
      const call = await sandbox.run('apis.music.login({ username: text.slice(0, 8 * 1024 * 1024) });');
      expect(call.output).toMatch(/are 8388623 characters as JSON; at most 1000000 are accepted\.$/);
      // Nothing of it ended or replaced the worker: the variables are still there.
      expect(await sandbox.run('print(kept, text.length)')).toEqual({ output: 'before 25165824', ok: true });
      expect(pool.liveWorkers).toBe(workers);
    } finally {
      sandbox.dispose();
    }
  });

  it('ends a block that makes the worker pass its heap limit with a MemoryError; the pool replaces the worker', {
    timeout: 60_000,
  }, async () => {
    // Output kept up to 64 million characters: more than the worker's 32 MB heap holds.
    const limits = { memoryBytes: 16 * megabyte, maxOutputChars: 64 * megabyte, workerHeapBytes: 32 * megabyte };
    const sandbox = await CodeSandbox.create(optionsWith(limits));
    // A neighbour on the same pool, in another worker: it must not notice.
    const neighbour = await CodeSandbox.create(optionsWith({ memoryBytes: 16 * megabyte }));
    try {
      await neighbour.run("var mine = 'kept';");
      await sandbox.run("var kept = 'before';");
      const workers = pool.liveWorkers;
      const outcome = await sandbox.run(
        "var line = 'x'.repeat(1024 * 1024);\nfor (var i = 0; i < 200; i += 1) print(line);",
      );
      // Compared in part: a run that was not stopped would print millions of characters.
      expect({ ...outcome, output: outcome.output.slice(0, 300) }).toEqual({
        output:
          "Execution failed. Traceback:\nMemoryError: the code block made the sandbox's worker thread use more than 32 MB of JavaScript heap; the sandbox was restarted and variables from earlier code blocks are gone.",
        ok: false,
        failure: 'memory',
      });
      // The ended worker was replaced by a fresh one: as many threads as before, and a clean engine.
      expect(pool.liveWorkers).toBe(workers);
      expect(
        await sandbox.run("print(typeof kept, apis.music.login({ username: 'me', password: 'right' }).access_token)"),
      ).toEqual({ output: 'undefined token-1', ok: true });
      expect(await neighbour.run('print(mine)')).toEqual({ output: 'kept', ok: true });
    } finally {
      sandbox.dispose();
      neighbour.dispose();
    }
  });
});

describe('sandbox limits that could end the process', () => {
  it('are refused as the environment is made: a worker heap too small for the output limit', () => {
    // 16 MB of heap and 100 million characters kept: printing 30 million ended the process (V8 aborts).
    const tiny = { workerHeapBytes: 16 * megabyte, maxOutputChars: 100_000_000 };
    expect(() => createAppWorldEnvironment({ limits: tiny })).toThrow(
      'sandbox limits: workerHeapBytes 16777216 is too small for maxOutputChars 100000000: a block printing that much could end the process; give at least 416777216 (16 MiB + 4 bytes per output character), or a smaller maxOutputChars',
    );
    // The default heap for a 64 MB engine (288 MB) holds up to about 71 million characters.
    expect(() => checkSandboxLimits({ maxOutputChars: 71_000_000 })).not.toThrow();
    expect(() => checkSandboxLimits({ maxOutputChars: 72_000_000 })).toThrow(/workerHeapBytes 301989888 is too small/);
    expect(() => checkSandboxLimits({})).not.toThrow();
  });

  it('at the smallest heap the check allows, the longest output a block can print is kept', {
    timeout: 60_000,
  }, async () => {
    const maxOutputChars = 10_000_000;
    const sandbox = await CodeSandbox.create(
      optionsWith({ memoryBytes: 512 * megabyte, maxOutputChars, workerHeapBytes: minWorkerHeapBytes(maxOutputChars) }),
    );
    try {
      // Two bytes per character in the engine and in the worker: the costliest output of this length.
      const outcome = await sandbox.run("print('\\u4e00'.repeat(11000000))");
      expect(outcome.ok).toBe(true);
      expect(outcome.output.startsWith('\u4e00'.repeat(maxOutputChars))).toBe(true);
      expect(outcome.output.slice(maxOutputChars)).toBe('[output truncated: 1000001 more characters]');
    } finally {
      sandbox.dispose();
    }
  });
});

/** Fills the engine's memory in ever smaller pieces, catching every failure, and keeps it all. */
const hoard = [
  'var held = [];',
  'for (var size = 65536; size >= 64; size /= 2) {',
  "  try { while (true) held.push('x'.repeat(size) + held.length); } catch (error) {}",
  '}',
].join('\n');

describe("code sandbox: a full engine's memory is reported where it filled up", () => {
  it('fails the block that reached the memory cap even when its code caught the error; later blocks show their own errors', async () => {
    const sandbox = await CodeSandbox.create(optionsWith({ memoryBytes: 16 * megabyte }));
    try {
      await sandbox.run("var kept = 'before';");
      const full = await sandbox.run(hoard);
      // The next block's error is its own, not a MemoryError left over from the full engine.
      const next = await sandbox.run(wrongLogin);
      expect({ full, next }).toEqual({
        full: {
          output:
            'Execution failed. Traceback:\nMemoryError: the code block used more than 16 MB (variables kept from earlier code blocks included); the sandbox was restarted and variables from earlier code blocks are gone.',
          ok: false,
          failure: 'memory',
        },
        next: { output: unauthorized, ok: false, failure: 'exception' },
      });
      expect(await sandbox.run('print(typeof kept, typeof held)')).toEqual({ output: 'undefined undefined', ok: true });
    } finally {
      sandbox.dispose();
    }
  });

  it('makes no API call once the memory cap is reached in a block', async () => {
    const sandbox = await CodeSandbox.create(optionsWith({ memoryBytes: 16 * megabyte }));
    try {
      const before = calls.length;
      const outcome = await sandbox.run(
        `${hoard}\nfor (var i = 0; i < 5; i += 1) try { apis.music.login({ username: 'me', password: 'right' }); } catch (error) {}`,
      );
      expect(outcome).toMatchObject({ ok: false, failure: 'memory' });
      expect(calls.length).toBe(before);
    } finally {
      sandbox.dispose();
    }
  });

  it('keeps the engine of a block that stayed under the cap, and reports memory only for the block that fills it', async () => {
    const sandbox = await CodeSandbox.create(optionsWith({ memoryBytes: 16 * megabyte }));
    try {
      // Refused by the engine's own limit before any memory is taken: an ordinary, catchable error.
      expect(
        await sandbox.run(
          "var kept = 'x'.repeat(1000);\ntry { 'y'.repeat(64 * 1024 * 1024); } catch (error) { print(String(error)); }",
        ),
      ).toEqual({ output: 'InternalError: out of memory', ok: true });
      expect(await sandbox.run('print(kept.length)')).toEqual({ output: '1000', ok: true });
    } finally {
      sandbox.dispose();
    }
  });
});
