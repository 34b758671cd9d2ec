import { createServer } from 'node:net';
import { createAppWorldEnvironment, startAppWorldServer } from '@harness-s/env-appworld';
import { describe, expect, it } from 'vitest';
import { startAppWorldStandIn } from '../__fixtures__/appworld-stand-in.js';
import { startChatServer } from '../__fixtures__/chat-server.js';
import { loadPlugins } from '../plugins.js';
import { type DoctorCheck, failureText, runDoctor } from './doctor.js';

const inCi = process.env['CI'] === 'true';
const byPart = (checks: DoctorCheck[], start: string) => checks.find((check) => check.part.startsWith(start));

describe('harness-s doctor', () => {
  it('tries every embedded default and plug-in with an oracle episode, and every service at its usual address', async () => {
    await loadPlugins(new URL('../../../tests/src/fixtures/counter-plugin.ts', import.meta.url).href);
    const printed: string[] = [];
    const { checks, ok } = await runDoctor({ docker: inCi, json: true }, (line) => printed.push(line));
    expect(JSON.parse(printed.join('\n'))).toEqual({ ok, checks });
    for (const part of ['Node.js', 'dbbench on PGlite', 'appworld, embedded', 'swegym, local sandbox']) {
      expect(byPart(checks, part)).toMatchObject({ status: 'ok', required: true });
    }
    expect(byPart(checks, 'dbbench on PGlite')?.detail).toMatch(/^the oracle solved dev-\d+ \(dev\)$/);
    // An environment a plug-in added is checked as the built-in ones are.
    expect(byPart(checks, 'counter (plug-in)')).toMatchObject({
      status: 'ok',
      required: true,
      neededBy: '--env counter',
      detail: 'the oracle solved count-1 (dev)',
    });
    // Services not named by a flag are reported, never required.
    for (const part of ['PostgreSQL', 'MySQL/MariaDB', 'Redis', 'Docker daemon', 'SWE-Gym image']) {
      expect(byPart(checks, part)?.required).toBe(false);
    }
    expect(ok).toBe(true);
    const services = checks.filter((check) => /^(PostgreSQL|MySQL|Redis|Docker|SWE-Gym)/.test(check.part));
    if (inCi) {
      // CI runs every one of them.
      for (const check of services) expect(check, check.part).toMatchObject({ status: 'ok' });
    } else {
      for (const check of services.filter((item) => item.status !== 'ok'))
        console.log(`doctor test: ${check.part} not checked here: ${check.detail}`);
    }
  }, 180_000);

  it('refuses a server flag that is no URL of that server, before any check', async () => {
    await expect(runDoctor({ postgres: 'notaurl', quiet: true }, () => undefined)).rejects.toThrow(
      "--postgres: 'notaurl' is not a URL of that server; give one like postgres://",
    );
    await expect(runDoctor({ mysql: 'postgres://u:secret@h/db', quiet: true }, () => undefined)).rejects.toThrow(
      "--mysql: 'postgres://u:***@h/db' is not a URL of that server",
    );
  });

  it('fails when a part named by a flag does not work, saying why and who needs it', async () => {
    const chat = await startChatServer(() => 'hi');
    try {
      const printed: string[] = [];
      const { checks, ok } = await runDoctor(
        {
          docker: false,
          postgres: 'postgres://postgres@127.0.0.1:1/test',
          redis: 'redis://127.0.0.1:2',
          baseUrl: chat.baseUrl,
          model: 'test',
          timeout: 30_000,
          quiet: true,
        },
        (line) => printed.push(line),
      );
      expect(ok).toBe(false);
      expect(byPart(checks, 'PostgreSQL postgres://postgres@127.0.0.1:1/test')).toMatchObject({
        status: 'unreachable',
        required: true,
        detail: expect.stringMatching(/cannot reach .*127\.0\.0\.1:1/),
      });
      expect(byPart(checks, 'Redis redis://127.0.0.1:2')).toMatchObject({ status: 'unreachable', required: true });
      expect(byPart(checks, 'OpenAI-compatible endpoint')).toMatchObject({
        status: 'ok',
        detail: expect.stringMatching(/^serves test; test answered a chat completion with a tool in \d+ ms$/),
      });
      // The chat completion went out as a run's do: with a tool to call.
      expect(JSON.stringify(chat.tools.at(-1))).toContain('"name":"finish"');
      expect(byPart(checks, 'Docker daemon')).toMatchObject({ status: 'skipped', detail: '--no-docker' });
      const table = printed.join('\n');
      expect(table).toMatch(/unreachable! +PostgreSQL .*; needed by dbbench --db postgres:\/\/\.\.\./);
      expect(table).toMatch(/A part marked ! does not work/);

      const other = await runDoctor(
        { docker: false, baseUrl: chat.baseUrl, model: 'gpt-9', json: true },
        () => undefined,
      );
      expect(byPart(other.checks, 'OpenAI-compatible endpoint')).toMatchObject({
        status: 'failed',
        detail: 'serves test, not gpt-9',
      });
      expect(other.ok).toBe(false);

      // An endpoint nothing listens at: the reason, not just "fetch failed".
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as { port: number };
      await new Promise((resolve) => closed.close(resolve));
      const nobody = await runDoctor(
        { docker: false, baseUrl: `http://127.0.0.1:${port}/v1`, json: true },
        () => undefined,
      );
      expect(byPart(nobody.checks, `OpenAI-compatible endpoint http://127.0.0.1:${port}/v1`)).toMatchObject({
        detail: expect.stringMatching(/^fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/),
      });
    } finally {
      await chat.close();
    }
  }, 180_000);

  it('runs an oracle episode on the AppWorld servers --appworld-url names, and fails without them', async () => {
    const world = createAppWorldEnvironment();
    const server = await startAppWorldServer({ environment: world });
    try {
      const flags = { docker: false, timeout: 30_000, quiet: true, json: true };
      const served = await runDoctor({ ...flags, appworldUrl: [server.url] }, () => undefined);
      expect(byPart(served.checks, 'AppWorld server')).toMatchObject({
        status: 'ok',
        required: true,
        detail: expect.stringMatching(/^the oracle solved \w+_\d \(dev\)$/),
      });
      const gone = await runDoctor({ ...flags, appworldUrl: ['http://127.0.0.1:3'] }, () => undefined);
      expect(gone.ok).toBe(false);
      expect(byPart(gone.checks, 'AppWorld server http://127.0.0.1:3')?.detail).toMatch(/unreachable/);
    } finally {
      await server.close();
      await world.close();
    }
  }, 120_000);

  it("checks AppWorld's own server by running a line of Python on a task of its dataset", async () => {
    const standIn = await startAppWorldStandIn();
    try {
      const flags = { docker: false, timeout: 30_000, quiet: true, json: true };
      const report = await runDoctor({ ...flags, appworldUrl: [standIn.url] }, () => undefined);
      expect(byPart(report.checks, 'AppWorld server')).toMatchObject({
        status: 'ok',
        detail:
          "AppWorld's own server: initialized 82e2fac_1 and ran Python code (its tasks need a Python harness: --harness or --base h0-python or h0-python-tools)",
      });
      expect(standIn.code).toEqual(['print("harness-s " + "doctor")']);
    } finally {
      await standIn.close();
    }
  }, 120_000);

  it('checks it on the task --appworld-task names, for a server whose data lacks the default one', async () => {
    const standIn = await startAppWorldStandIn(['abc1234_1']);
    try {
      const flags = { docker: false, timeout: 30_000, quiet: true, json: true, appworldUrl: [standIn.url] };
      const refused = byPart((await runDoctor(flags, () => undefined)).checks, 'AppWorld server');
      expect(refused?.status).toBe('failed');
      expect(refused?.detail).toMatch(/82e2fac_1 not found.*; check on a task the server has with --appworld-task ID$/);
      const report = await runDoctor({ ...flags, appworldTask: 'abc1234_1' }, () => undefined);
      expect(byPart(report.checks, 'AppWorld server')).toMatchObject({
        status: 'ok',
        detail: expect.stringContaining("AppWorld's own server: initialized abc1234_1 and ran Python code"),
      });
      expect(standIn.initialized).toEqual(['abc1234_1']);
      await expect(
        runDoctor({ ...flags, appworldUrl: [], appworldTask: 'abc1234_1' }, () => undefined),
      ).rejects.toThrow(
        '--appworld-task names the task an AppWorld server is checked on: give the server with --appworld-url',
      );
    } finally {
      await standIn.close();
    }
  }, 120_000);
});

describe('failureText', () => {
  it("adds the cause's message, or its errors' when it has none of its own", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(failureText(new TypeError('fetch failed', { cause: refused }))).toBe(
      'fetch failed (connect ECONNREFUSED 127.0.0.1:1)',
    );
    const both = new AggregateError([new Error('connect ECONNREFUSED ::1:1'), refused], '');
    expect(failureText(new TypeError('fetch failed', { cause: both }))).toBe(
      'fetch failed (connect ECONNREFUSED ::1:1; connect ECONNREFUSED 127.0.0.1:1)',
    );
    expect(failureText(new Error('plain'))).toBe('plain');
  });
});
