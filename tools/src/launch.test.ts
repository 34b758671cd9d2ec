import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const launcher = fileURLToPath(new URL('../launch.mjs', import.meta.url));

/** `node launch.mjs` in a copy of the package whose dist holds `cli` (none when undefined). */
async function launch(cli: string | undefined): Promise<{ code: number; stderr: string; stdout: string }> {
  const root = await mkdtemp(join(tmpdir(), 'launch-'));
  await copyFile(launcher, join(root, 'launch.mjs'));
  if (cli !== undefined) {
    await mkdir(join(root, 'dist'));
    await writeFile(join(root, 'dist', 'cli.js'), cli);
  }
  return promisify(execFile)(process.execPath, [join(root, 'launch.mjs')]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe('npm run harness-s', () => {
  it('says to build, in one line, when the command line or a package it uses has no build', async () => {
    const unbuilt = await launch(undefined);
    expect(unbuilt.code).toBe(2);
    expect(unbuilt.stderr).toBe(
      'harness-s is not built yet (tools/dist/cli.js is missing): run `npm run build` first (`npm start` builds and runs a reproduction)\n',
    );
    const partly = await launch(
      `import ${JSON.stringify(join(tmpdir(), 'node_modules', '@harness-s', 'router', 'dist', 'index.js'))};`,
    );
    expect(partly.code).toBe(2);
    expect(partly.stderr).toMatch(
      /^harness-s is not built yet \(@harness-s\/router has no dist\): run `npm run build`/,
    );
    expect(partly.stderr.split('\n')).toHaveLength(2);
  });

  it('runs the built command line, and lets its other errors through', async () => {
    expect(await launch('console.log("ran");')).toMatchObject({ code: 0, stdout: 'ran\n' });
    const broken = await launch('throw new TypeError("a bug");');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/TypeError: a bug/);
  });
});
