import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runCli } from './src/cli-process.js';

const plugin = { HARNESS_S_PLUGINS: join(repositoryRoot, 'tests/src/fixtures/counter-plugin.ts') };

describe('a benchmark plugged in through HARNESS_S_PLUGINS', () => {
  it('is an --env of every command, in worker threads too', async () => {
    const out = await mkdtemp(join(tmpdir(), 'plugin-'));
    const evaluated = await runCli(
      ['eval', '--env', 'counter', '--policy', 'oracle', '--k', '1', '--out', join(out, 'eval')],
      plugin,
    );
    expect(evaluated.stderr).not.toMatch(/error/);
    expect(evaluated.code).toBe(0);
    expect(evaluated.stdout).toMatch(/solved 20\/20 tasks at least once/);

    // Evolution (with the plug-in's extras), profiles, the four methods and the router ablations,
    // two runs at a time in worker threads that load the plug-in themselves.
    const reproduced = await runCli(
      [
        'reproduce',
        '--quick',
        '--envs',
        'counter',
        '--seeds',
        '1',
        '--jobs',
        '2',
        '--no-report',
        '--out',
        join(out, 'reproduce'),
      ],
      plugin,
    );
    expect(reproduced.stderr).not.toMatch(/error/);
    expect(reproduced.code).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'reproduce', 'results.json'), 'utf8'));
    expect(results.records).toHaveLength(6);
    expect(new Set(results.records.map((record: { env: string }) => record.env))).toEqual(new Set(['counter']));

    const cleanup = await runCli(['cleanup', '--env', 'counter'], plugin);
    expect(cleanup.code).toBe(0);
    expect(cleanup.stdout).toBe(
      'nothing to clean: counter leaves nothing behind (environments with a cleanup: dbbench, swegym)\n',
    );
  }, 120_000);

  it('names a plug-in that does not load, or is not one, and tells a bug in one from bad input', async () => {
    // A plug-in whose own code throws: an internal error with its stack, not an infrastructure error (1).
    const out = await mkdtemp(join(tmpdir(), 'plugin-bug-'));
    const buggy = await runCli(
      [
        'eval',
        '--env',
        'counter',
        '--policy',
        'oracle',
        '--k',
        '1',
        '--limit',
        '1',
        '--quiet',
        '--out',
        join(out, 'eval'),
      ],
      {
        HARNESS_S_PLUGINS: join(repositoryRoot, 'tests/src/fixtures/buggy-plugin.ts'),
      },
    );
    expect(buggy.code).toBe(70);
    expect(buggy.stderr).toMatch(
      /^harness-s: internal error \(a bug in harness-s or in a plug-in, .*\):\nTypeError: Cannot read properties of undefined \(reading 'counter'\)\n\s+at .*buggy-plugin\.ts/m,
    );
    const missing = await runCli(['eval', '--env', 'counter'], { HARNESS_S_PLUGINS: './no-such-plugin.js' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/HARNESS_S_PLUGINS: cannot load '\.\/no-such-plugin\.js'/);
    const notOne = await runCli(['eval', '--env', 'counter'], {
      HARNESS_S_PLUGINS: join(repositoryRoot, 'tests/src/run-outcome.ts'),
    });
    expect(notOne.code).toBe(2);
    expect(notOne.stderr).toMatch(/HARNESS_S_PLUGINS: '.*run-outcome\.ts' loads, but exports no plug-in: export one/);
    // An environment no plug-in added: where the others come from, and which the plug-ins gave.
    const unknown = await runCli(['eval', '--env', 'mybench'], { HARNESS_S_PLUGINS: '' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /argument 'mybench' is invalid[\s\S]*more environments come from plug-ins: HARNESS_S_PLUGINS=/,
    );
    const other = await runCli(['eval', '--env', 'mybench'], plugin);
    // The plug-in's environment comes after the built-in ones (whatever they are).
    const builtIn = /Allowed choices are ([^.\n]+)\./.exec(unknown.stderr)?.[1];
    expect(builtIn).toMatch(/^dbbench, /);
    expect(other.stderr).toContain(`Allowed choices are ${builtIn}, counter.`);
    expect(other.stderr).toMatch(/the plug-ins in HARNESS_S_PLUGINS add: counter/);
  }, 60_000);
});
