import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../api/definition.js';
import { CodeSandbox, type SandboxOptions } from './code-sandbox.js';
import { SandboxWorkerPool } from './worker-pool.js';

const pool = new SandboxWorkerPool(2);
const calls: Array<{ app: string; api: string; args: unknown }> = [];
const options: SandboxOptions = {
  apiNames: { music: ['login', 'show_song'], supervisor: ['complete_task'] },
  now: '2024-06-14T10:00:00',
  limits: { timeoutMs: 600, memoryBytes: 16 * 1024 * 1024 },
  pool,
  callApi: (app, api, args) => {
    calls.push({ app, api, args });
    const given = args as Record<string, unknown>;
    if (api === 'login' && given['password'] !== 'right') throw new ApiError(401, 'Invalid credentials.');
    if (api === 'show_song' && !('song_id' in given))
      throw new ApiError(422, "Validation error: parameter 'song_id' is required.");
    return { access_token: 'token-1', echo: given };
  },
};

let sandbox: CodeSandbox;
beforeAll(async () => {
  sandbox = await CodeSandbox.create(options);
});
afterAll(async () => {
  sandbox.dispose();
  await pool.close();
});

/** Runs a block, then checks that the sandbox still runs code and (unless restarted) keeps `kept`. */
async function expectStillWorks(keptVariables: boolean): Promise<void> {
  const after = await sandbox.run("print(typeof kept === 'undefined' ? 'gone' : kept)");
  expect(after).toEqual({ output: keptVariables ? 'still here' : 'gone', ok: true });
  await sandbox.run("var kept = 'still here';");
}

describe('code sandbox: behaviour', () => {
  it('keeps variables across blocks and answers as AppWorld does', async () => {
    expect(await sandbox.run("var kept = 'still here';")).toEqual({ output: 'Execution successful.', ok: true });
    expect(await sandbox.run("print('a', 1, {b: [2]})")).toEqual({
      output: 'a 1 {\n  "b": [\n    2\n  ]\n}',
      ok: true,
    });
    const token = await sandbox.run(
      "var token = apis.music.login({ username: 'me', password: 'right' }).access_token;\nprint(token)",
    );
    expect(token.output).toBe('token-1');
    expect(calls.at(-1)).toEqual({ app: 'music', api: 'login', args: { username: 'me', password: 'right' } });
  });

  it('shows API errors as a traceback with the failing line and the status', async () => {
    const outcome = await sandbox.run(
      "print('before');\nvar result = apis.music.login({ username: 'me', password: 'wrong' });",
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.failure).toBe('exception');
    expect(outcome.output).toBe(
      'before\nExecution failed. Traceback:\n  File "<code>", line 2, in <module>\n' +
        "    var result = apis.music.login({ username: 'me', password: 'wrong' });\n" +
        'Exception: Response status code is 401: {"message": "Invalid credentials."}',
    );
    const caught = await sandbox.run(
      'try { apis.music.show_song({}) } catch (error) { print(error.status, error.message) }',
    );
    expect(caught.output).toContain('422 Response status code is 422');
  });

  it('freezes time at the task datetime', async () => {
    expect((await sandbox.run('print(new Date().toISOString(), Date.now())')).output).toBe(
      '2024-06-14T10:00:00.000Z 1718359200000',
    );
    // No way back to the real clock: the prototype chain, the constructor, Date() as a function.
    const ways = [
      'new (Object.getPrototypeOf(Date))()',
      'new (Object.getPrototypeOf(Date.prototype).constructor)()',
      'new (new Date().constructor)()',
      'new Date(Date())',
      'new Date(2020, 0, 1)',
    ];
    const seen = await sandbox.run(
      `for (const make of [${ways.map((way) => `() => ${way}`).join(', ')}]) { try { print(make().toISOString()) } catch (error) { print('refused') } }`,
    );
    expect(seen.output.split('\n')).toEqual([
      'refused',
      'refused',
      '2024-06-14T10:00:00.000Z',
      '2024-06-14T10:00:00.000Z',
      new Date(2020, 0, 1).toISOString(),
    ]);
    expect(
      (await sandbox.run('print(new Date(5).getTime(), typeof Date.UTC(2020, 0), new Date() instanceof Date)')).output,
    ).toBe('5 number true');
  });
});

describe('code sandbox: escape attempts fail with a clear observation', () => {
  it('has no process, require, module loading, file system or network', async () => {
    const globals = await sandbox.run(
      "print([typeof process, typeof require, typeof module, typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof Deno, typeof Bun, typeof std, typeof os].join(','))",
    );
    expect(globals.output).toBe(Array(10).fill('undefined').join(','));
    const usingProcess = await sandbox.run('process.exit(1)');
    expect(usingProcess.output).toMatch(/ReferenceError: 'process' is not defined/);
    const usingRequire = await sandbox.run("require('fs').readFileSync('/etc/passwd')");
    expect(usingRequire.output).toMatch(/ReferenceError: 'require' is not defined/);
    for (const code of [
      "import('fs')",
      "import('node:child_process').then((m) => m.execSync('id'))",
      "(async () => { await import('http') })()",
    ]) {
      const outcome = await sandbox.run(code);
      expect(outcome.ok).toBe(false);
      expect(outcome.output).toMatch(/modules cannot be loaded in this sandbox/);
    }
    expect((await sandbox.run("import fs from 'fs';")).output).toMatch(/modules cannot be loaded in this sandbox/);
    await expectStillWorks(true);
  });

  it('gives prototype tricks on the injected apis nothing of the host', async () => {
    const reachable = await sandbox.run(
      [
        "var globalObject = apis.constructor.constructor('return this')();",
        "var viaFunction = apis.music.login.constructor('return typeof process + typeof __hostCall + typeof __hostPrint')();",
        'print(globalObject === globalThis, viaFunction, Object.keys(globalThis).filter((name) => name.startsWith("__")).length)',
      ].join('\n'),
    );
    expect(reachable.output).toBe('true undefinedundefinedundefined 0');
    const tampering = await sandbox.run(
      "apis.music.login = () => 'hijacked'; apis.evil = 1; Object.prototype.polluted = 'yes'; print(typeof apis.evil, Object.isFrozen(apis.music))",
    );
    expect(tampering.output).toBe('undefined true');
    // JSON replaced by agent code breaks only its own view, not the bridge.
    await sandbox.run(
      'JSON.parse = () => ({ ok: true, value: \'forged\' }); JSON.stringify = () => \'{"password":"right"}\';',
    );
    const bridged = await sandbox.run("print(apis.music.login({ username: 'me', password: 'wrong' }))");
    expect(bridged.output).toMatch(/Response status code is 401/);
    // The host got the real arguments, not a forged or polluted object.
    expect(calls.at(-1)?.args).toEqual({ username: 'me', password: 'wrong' });
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    await expectStillWorks(true);
  });
});

describe('code sandbox: hangs and exhaustion fail with a clear observation', () => {
  it('stops an endless loop at the time limit and keeps the variables', async () => {
    const outcome = await sandbox.run('while (true) {}');
    expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
    expect(outcome.output).toMatch(/TimeoutError: the code block ran longer than 0.6 s/);
    await expectStillWorks(true);
  });

  it('stops code that hides between interrupt checks by ending the worker; the sandbox restarts', async () => {
    // Each native sort of a million numbers takes milliseconds, and the interrupt handler runs
    // once per 10,000 checks: tens of seconds apart, far past the 2 s grace. (A scan with indexOf takes
    // half a millisecond, which put the interrupt near the grace and let it win on a fast machine.)
    const outcome = await sandbox.run('var hog = new Float64Array(1000000); while (true) hog.sort();');
    expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
    expect(outcome.output).toMatch(/was stopped; the sandbox was restarted/);
    await expectStillWorks(false);
  });

  it('stops memory exhaustion at the memory limit; the sandbox restarts', async () => {
    const outcome = await sandbox.run("var big = 'x'; while (true) big = big + big;");
    expect(outcome).toMatchObject({ ok: false, failure: 'memory' });
    expect(outcome.output).toMatch(/MemoryError: the code block used more than 16 MB/);
    await expectStillWorks(false);
  });

  it('stops an endless async loop at the time limit, and drops the jobs still pending', async () => {
    const outcome = await sandbox.run("async function spin() { while (true) await null; }\nspin();\nprint('started');");
    expect(outcome).toMatchObject({ ok: false, failure: 'timeout' });
    expect(outcome.output).toMatch(
      /^started\nExecution failed. Traceback:\nTimeoutError: the code block ran longer than 0.6 s/,
    );
    // A job interrupted outside an async function leaves the jobs queued after it: they do not run on.
    const jobs = await sandbox.run(
      'var ran = 0;\nfor (var i = 0; i < 2; i += 1) Promise.resolve().then(() => { ran += 1; while (true) {} });',
    );
    expect(jobs).toMatchObject({ ok: false, failure: 'timeout' });
    expect(await sandbox.run('print(ran)')).toEqual({ output: '2', ok: true });
    await expectStillWorks(true);
  });

  it('holds the memory limit over many allocations, each within it; the sandbox restarts', async () => {
    for (const code of [
      'var chunks = [];\nfor (var i = 0; i < 100; i += 1) chunks.push(new Uint8Array(1024 * 1024).fill(1));',
      "var texts = [];\nfor (var i = 0; i < 100; i += 1) texts.push('x'.repeat(1024 * 1024) + i);",
    ]) {
      const outcome = await sandbox.run(code);
      expect(outcome).toMatchObject({ ok: false, failure: 'memory' });
      expect(outcome.output).toMatch(
        /MemoryError: the code block used more than 16 MB \(variables kept from earlier code blocks included\); the sandbox was restarted/,
      );
      await expectStillWorks(false);
    }
  });

  it('cuts an error message at the output limit', async () => {
    for (const code of ["throw new Error('E'.repeat(100000));", "throw 'E'.repeat(100000);"]) {
      const outcome = await sandbox.run(code);
      expect(outcome).toMatchObject({ ok: false, failure: 'exception' });
      expect(outcome.output.length).toBeLessThan(20_200);
      expect(outcome.output).toMatch(/E\.\.\. \[message truncated: \d+ more characters\]$/);
    }
    await expectStillWorks(true);
  });

  it('refuses an API call whose arguments are too long, without asking the host', async () => {
    const before = calls.length;
    const outcome = await sandbox.run("apis.music.login({ username: 'me', password: 'x'.repeat(2000000) });");
    expect(outcome.output).toMatch(
      /Exception: The arguments of apis\.music\.login are 2000031 characters as JSON; at most 1000000 are accepted\.$/,
    );
    expect(calls.length).toBe(before);
    await expectStillWorks(true);
  });

  it('stops deep recursion with a stack overflow, and cuts output floods', async () => {
    const recursion = await sandbox.run('function down(n) { return down(n + 1) + 1; }\ndown(0);');
    expect(recursion.output).toMatch(/InternalError: stack overflow/);
    expect(recursion.output).toMatch(/Previous line repeated \d+ more times/);
    const flood = await sandbox.run("for (var i = 0; i < 3000; i += 1) print('0123456789'.repeat(10));");
    expect(flood.output.length).toBeLessThan(21_000);
    expect(flood.output).toMatch(/\[output truncated: \d+ more characters\]/);
    await expectStillWorks(true);
  });

  it('starts the next episode clean after a crashed one', async () => {
    const crashed = await CodeSandbox.create(options);
    await crashed.run("var secret = 'from the earlier episode';");
    await crashed.run("var s = 'x'; while (true) s = s + s;");
    crashed.dispose();
    const next = await CodeSandbox.create(options);
    try {
      expect(
        (await next.run("print(typeof secret, apis.music.login({ username: 'me', password: 'right' }).access_token)"))
          .output,
      ).toBe('undefined token-1');
    } finally {
      next.dispose();
    }
  });
});
