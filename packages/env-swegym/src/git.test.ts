import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitInitialTree } from './embedded-repos.js';
import { applyPatchFile, extractPatch, patchedFiles } from './git.js';
import { createLocalSandboxProvider } from './local-sandbox.js';
import type { SweSandbox, Workspace } from './swe-sandbox.js';

let root: string;
let workspace: Workspace;
const provider = createLocalSandboxProvider();
const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join('\n');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'git-test-'));
  const repo = join(root, 'origin');
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, 'notes.txt'), `${lines}\n`);
  const baseCommit = await commitInitialTree(repo);
  workspace = { kind: 'host', hostRepo: repo, repoPath: '/testbed', baseCommit };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function withSandbox<R>(body: (sandbox: SweSandbox) => Promise<R>): Promise<R> {
  const sandbox = await provider.create({});
  try {
    await sandbox.prepare(workspace);
    return await body(sandbox);
  } finally {
    await sandbox.destroy();
  }
}

describe('extractPatch', () => {
  it('takes modifications, new files and commits against the base commit, leaving binary files out', async () => {
    await withSandbox(async (sandbox) => {
      await sandbox.exec(
        "sed -i 's/line 3$/line three/' notes.txt && git commit -qam 'agent commit' && echo hello > new.txt && printf 'a\\0b' > blob.bin",
      );
      const extracted = await extractPatch(sandbox.git(), workspace.baseCommit);
      expect(extracted.error).toBeUndefined();
      expect(extracted.skippedBinaryFiles).toEqual(['blob.bin']);
      expect(patchedFiles(extracted.patch).sort()).toEqual(['new.txt', 'notes.txt']);
      expect(extracted.patch).toContain('+line three');
      expect(extracted.patch).toContain('+hello');
      expect(extracted.patch).not.toContain('blob.bin');
    });
  });

  it('is empty for an untouched repository, and reports a repository that is gone', async () => {
    await withSandbox(async (sandbox) => {
      expect((await extractPatch(sandbox.git(), workspace.baseCommit)).patch).toBe('');
      await sandbox.exec('rm -rf .git');
      const broken = await extractPatch(sandbox.git(), workspace.baseCommit);
      expect(broken.patch).toBe('');
      expect(broken.error).toMatch(/git add -A failed/);
    });
  });
});

describe('applyPatchFile (the SWE-bench ladder)', () => {
  /** A patch for notes.txt made in one sandbox, to apply in another. */
  async function makePatch(edit: string): Promise<string> {
    return withSandbox(async (sandbox) => {
      await sandbox.exec(edit);
      return (await extractPatch(sandbox.git(), workspace.baseCommit)).patch;
    });
  }

  it('applies a clean patch with git apply', async () => {
    const patch = await makePatch("sed -i 's/line 10$/line ten/' notes.txt");
    await withSandbox(async (sandbox) => {
      const path = `${sandbox.scratchPath}/p.patch`;
      await sandbox.writeFile(path, patch);
      const outcome = await applyPatchFile(sandbox.git(), (c, o) => sandbox.exec(c, o), sandbox.repoPath, path);
      expect(outcome).toMatchObject({ applied: true, method: 'git apply --verbose' });
      expect(await sandbox.readFile('notes.txt')).toContain('line ten');
    });
  });

  it('falls back to patch --fuzz when the context no longer matches exactly', async () => {
    const patch = await makePatch("sed -i 's/line 10$/line ten/' notes.txt");
    await withSandbox(async (sandbox) => {
      // The line right before the change differs now: git apply refuses, fuzzy patch accepts.
      await sandbox.exec("sed -i 's/line 9$/line nine/' notes.txt && git commit -qam drift");
      const path = `${sandbox.scratchPath}/p.patch`;
      await sandbox.writeFile(path, patch);
      const outcome = await applyPatchFile(sandbox.git(), (c, o) => sandbox.exec(c, o), sandbox.repoPath, path);
      expect(outcome).toMatchObject({ applied: true, method: 'patch --batch --fuzz=5 -p1 -i' });
      expect(outcome.log).toContain('$ git apply --verbose');
      const text = await sandbox.readFile('notes.txt');
      expect(text).toContain('line ten');
      expect(text).toContain('line nine');
    });
  });

  it('reports a patch that applies nowhere and leaves the tree as it was', async () => {
    await withSandbox(async (sandbox) => {
      const path = `${sandbox.scratchPath}/p.patch`;
      await sandbox.writeFile(
        path,
        'diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-nothing like this\n-at all\n+x\n+y\n',
      );
      const outcome = await applyPatchFile(sandbox.git(), (c, o) => sandbox.exec(c, o), sandbox.repoPath, path);
      expect(outcome.applied).toBe(false);
      expect(outcome.method).toBeNull();
      expect((await sandbox.exec('git status --porcelain')).stdout).toBe('');
    });
  });
});
