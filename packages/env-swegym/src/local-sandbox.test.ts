import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitInitialTree } from './embedded-repos.js';
import { createLocalSandboxProvider, type LocalSandbox, processAlive } from './local-sandbox.js';
import type { Workspace } from './swe-sandbox.js';

let root: string;
let workspace: Workspace;
const provider = createLocalSandboxProvider();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'local-sandbox-test-'));
  const repo = join(root, 'origin');
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(join(repo, 'src', 'a.txt'), 'alpha\n');
  await writeFile(join(repo, '.gitignore'), 'build/\n');
  const baseCommit = await commitInitialTree(repo);
  workspace = { kind: 'host', hostRepo: repo, repoPath: '/testbed', baseCommit };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function withSandbox<R>(body: (sandbox: LocalSandbox) => Promise<R>): Promise<R> {
  const sandbox = (await provider.create({})) as LocalSandbox;
  try {
    await sandbox.prepare(workspace);
    return await body(sandbox);
  } finally {
    await sandbox.destroy();
  }
}

describe('local sandbox', () => {
  it('runs commands in the repository with env, stdin and exit codes', async () => {
    await withSandbox(async (sandbox) => {
      const result = await sandbox.exec('cat src/a.txt; echo "$GREETING"; cat; echo oops >&2; exit 3', {
        env: { GREETING: 'hi' },
        stdin: 'from stdin\n',
      });
      expect(result.exitCode).toBe(3);
      expect(result.stdout).toBe('alpha\nhi\nfrom stdin\n');
      expect(result.stderr).toBe('oops\n');
      expect(result.timedOut).toBe(false);
    });
  });

  it('kills a command that never ends at its timeout, with everything it started, and keeps its output', async () => {
    await withSandbox(async (sandbox) => {
      const started = performance.now();
      const result = await sandbox.exec('echo started; sleep 300 & echo $! > child.pid; echo waiting; sleep 300', {
        timeoutMs: 700,
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(result.timedOut).toBe(true);
      expect(result.exitCode).toBe(137);
      expect(result.stdout).toBe('started\nwaiting\n');
      // The background child was in the same process group and died with it.
      const child = Number((await sandbox.readFile('child.pid')).trim());
      expect(Number.isInteger(child)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(processAlive(child)).toBe(false);
    });
  });

  it('kills what a finished command left running in the background on reset', async () => {
    await withSandbox(async (sandbox) => {
      const started = await sandbox.exec('sleep 300 > /dev/null 2>&1 & echo $! > ../scratch/server.pid', {
        timeoutMs: 5000,
      });
      expect(started.timedOut).toBe(false);
      const server = Number((await sandbox.readFile('../scratch/server.pid')).trim());
      expect(processAlive(server)).toBe(true);
      await sandbox.reset();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(processAlive(server)).toBe(false);
    });
  });

  it('cuts long output to head and tail with a count', async () => {
    await withSandbox(async (sandbox) => {
      const result = await sandbox.exec('seq 1 100000', { maxOutputChars: 1000 });
      expect(result.stdout.startsWith('1\n2\n3\n')).toBe(true);
      expect(result.stdout.endsWith('99999\n100000\n')).toBe(true);
      expect(result.truncatedChars).toBeGreaterThan(500_000);
      expect(result.stdout).toContain(`[... ${result.truncatedChars} characters elided ...]`);
    });
  });

  it('resets tracked, untracked, new ignored files and commits back to the base commit', async () => {
    await withSandbox(async (sandbox) => {
      await sandbox.exec(
        'echo changed > src/a.txt && echo new > src/b.txt && mkdir -p build && echo out > build/x && git add -A && git commit -qm wip && echo later > src/c.txt',
      );
      await sandbox.writeFile('src/d.txt', 'written\n');
      await sandbox.reset();
      expect(await sandbox.readFile('src/a.txt')).toBe('alpha\n');
      const listing = await sandbox.exec('git status --porcelain --ignored; git rev-parse HEAD; ls src');
      expect(listing.stdout).toBe(`${workspace.baseCommit}\na.txt\n`);
    });
  });

  it('resets from the source repository, whatever the commands wrote in the scratch directory', async () => {
    await withSandbox(async (sandbox) => {
      // A planted record of the initial state would bring the change back at the reset.
      await sandbox.exec(
        [
          'echo changed > src/a.txt',
          'git diff --binary HEAD > ../scratch/baseline.diff',
          'git status --porcelain | LC_ALL=C sort > ../scratch/baseline-status',
          'git checkout -q -- src/a.txt',
        ].join(' && '),
      );
      await sandbox.reset();
      expect(await sandbox.readFile('src/a.txt')).toBe('alpha\n');
      expect((await sandbox.exec('git status --porcelain')).stdout).toBe('');
    });
  });

  it('resets from the source repository, whatever the commands wrote in .git', async () => {
    await withSandbox(async (sandbox) => {
      // The base commit replaced by one with the change, and a hook that runs at checkout.
      await sandbox.exec(
        [
          'echo changed > src/a.txt',
          'git add -A',
          'git replace -f HEAD "$(git commit-tree "$(git write-tree)" -m replaced)"',
          'printf "#!/bin/sh\\necho hooked > src/a.txt\\n" > .git/hooks/post-checkout',
          'chmod +x .git/hooks/post-checkout',
        ].join(' && '),
      );
      expect((await sandbox.exec('git status --porcelain')).stdout).toBe('');
      await sandbox.reset();
      expect(await sandbox.readFile('src/a.txt')).toBe('alpha\n');
      const state = await sandbox.exec('git status --porcelain; git replace -l; ls .git/hooks | grep -v sample; true');
      expect(state.stdout).toBe('');
    });
  });

  it('destroys its directory, and cleanup removes directories of dead processes only', async () => {
    const sandbox = await provider.create({});
    await sandbox.destroy();
    await sandbox.destroy();
    expect(existsSync(sandbox.id)).toBe(false);
    await expect(sandbox.exec('true')).rejects.toThrow(/destroyed/);

    const dead = join(tmpdir(), 'harness-s-swegym-999999999-leftover');
    const live = await provider.create({});
    await mkdir(dead, { recursive: true });
    try {
      expect(await provider.cleanup()).toBeGreaterThanOrEqual(1);
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live.id)).toBe(true);
    } finally {
      await live.destroy();
    }
  });

  it('needs a local repository for instances whose repository is only in an image', async () => {
    const sandbox = await provider.create({});
    try {
      await expect(sandbox.prepare({ kind: 'image', repoPath: '/testbed', baseCommit: 'abc1234' })).rejects.toThrow(
        /local git repository/,
      );
    } finally {
      await sandbox.destroy();
    }
  });
});
