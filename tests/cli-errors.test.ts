import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliUnread } from './src/cli-process.js';

/** One line naming what failed, exit code 2, and no stack trace. */
function expectOneLineError(run: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

describe('errors of the machine, told in one line', () => {
  it('an --out that cannot be made, a port in use, a port out of range, a run folder with a broken config.json', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-errors-'));
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    expectOneLineError(
      await runCli(['eval', '--limit', '1', '--k', '1', '--quiet', '--out', join(file, 'run')]),
      /^harness-s: error: ENOTDIR: .*a-file\/run.* \(a part of the path is a file, not a folder; choose another path\)$/m,
    );

    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      expectOneLineError(
        await runCli(['serve', 'sim', '--port', String(port)]),
        new RegExp(`EADDRINUSE: .*127\\.0\\.0\\.1:${port} \\(another program listens there; choose another --port`),
      );
    } finally {
      taken.close();
    }

    const outOfRange = await runCli(['serve', 'sim', '--port', '99999']);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toMatch(/--port must be an integer from 0 to 65535, got '99999'/);

    const broken = join(dir, 'broken-run');
    await mkdir(broken);
    await writeFile(join(broken, 'config.json'), '{ "command": ');
    expectOneLineError(await runCli(['report', broken]), /config\.json: not valid JSON/);
  }, 120_000);

  it('a reader that stops reading (| head) stops only the printing: the run ends, its folder complete and unlocked', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'cli-epipe-')), 'run');
    const run = await runCliUnread(['eval', '--policy', 'oracle', '--limit', '1', '--k', '1', '--out', out]);
    expect(run.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(run.code).toBe(0);
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
    expect(existsSync(join(out, 'run.lock'))).toBe(false);
  });
});
