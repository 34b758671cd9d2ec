import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@harness-s/core';
import { type SimpleGit, simpleGit } from 'simple-git';

/** The data of the embedded instances: `<name>/instance.json`, `<name>/repo/`, `<name>/test-patch/`. */
export const embeddedDataDir = fileURLToPath(new URL('../data/embedded/', import.meta.url));

/** The generated SWE-bench-format records of the embedded instances. */
export const embeddedInstancesPath = join(embeddedDataDir, 'instances.jsonl');

/** The image the embedded instances run in under Docker by default (built by `.ci/docker.sh`). */
export const embeddedImage = 'harness-s/swegym-embedded:2';

/**
 * The image the embedded instances run in: `HARNESS_S_SWEGYM_IMAGE` when set (the name
 * `.ci/docker.sh` builds under the same variable), else `embeddedImage`.
 */
export const embeddedImageName = (): string => process.env['HARNESS_S_SWEGYM_IMAGE'] || embeddedImage;

/**
 * Fixed author, committer and dates: the same files always make the same commit, so the
 * `base_commit` hashes stored in the records hold on every machine.
 */
const commitEnvironment = {
  GIT_AUTHOR_NAME: 'Harness-S',
  GIT_AUTHOR_EMAIL: 'embedded@harness-s.invalid',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00+0000',
  GIT_COMMITTER_NAME: 'Harness-S',
  GIT_COMMITTER_EMAIL: 'embedded@harness-s.invalid',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00+0000',
};

/** Settings that could change what a commit holds are pinned, whatever the machine's git config says. */
const pinnedConfig = ['core.autocrlf=false', 'core.fileMode=true', 'commit.gpgsign=false', 'core.safecrlf=false'];

/** A git client for a directory that ignores the machine's configuration where it matters. */
export function pinnedGit(baseDir: string): SimpleGit {
  // Only the variables git needs: the machine's own (EDITOR, GIT_*) could change what it does.
  // GIT_CONFIG_GLOBAL points at /dev/null (no user configuration), which simple-git asks to allow.
  return simpleGit({ baseDir, config: pinnedConfig, unsafe: { allowUnsafeConfigPaths: true } }).env({
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? tmpdir(),
    ...commitEnvironment,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  });
}

/** Every file under a directory, as paths relative to it, in a stable order. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The stored name of a file in the repository. Package managers drop `.gitignore` files from
 * published packages, so the data stores them as `gitignore`.
 */
export const repositoryPath = (storedPath: string): string => storedPath.replace(/(^|\/)gitignore$/, '$1.gitignore');

/** Copies a stored file tree into a directory, every file with mode 0644. */
export async function copyTree(source: string, target: string): Promise<void> {
  for (const file of await listFiles(source)) {
    const destination = join(target, repositoryPath(file));
    await mkdir(dirname(destination), { recursive: true });
    await writeFile(destination, await readFile(join(source, file)));
    await chmod(destination, 0o644);
  }
}

/** Initialises a repository in `dir` (which holds the files) and makes its first commit. */
export async function commitInitialTree(dir: string): Promise<string> {
  const git = pinnedGit(dir);
  await git.init(['--quiet', '--initial-branch=main']);
  await git.add(['-A']);
  await git.commit('Initial commit', undefined, { '--quiet': null, '--no-verify': null });
  return (await git.revparse(['HEAD'])).trim();
}

/** Where built repositories are kept between runs (one directory per repository and commit). */
export const repositoryCacheRoot = (): string => join(tmpdir(), `harness-s-swegym-repos-${userInfo().uid}`);

async function headOf(dir: string): Promise<string | null> {
  try {
    await stat(join(dir, '.git'));
    return (await simpleGit({ baseDir: dir }).revparse(['HEAD'])).trim();
  } catch {
    return null;
  }
}

/**
 * The git repository of an embedded instance at its base commit, built from its stored files
 * once and reused. Built in a temporary directory and renamed into place, so concurrent runs never
 * see half a repository. A build that does not reproduce the recorded commit is an error: the
 * stored files and the record disagree.
 */
export async function ensureEmbeddedRepository(
  sourceDir: string,
  expectedCommit: string,
  cacheRoot = repositoryCacheRoot(),
): Promise<string> {
  const name = `${sourceDir.split('/').filter(Boolean).slice(-2, -1)[0] ?? 'repo'}-${expectedCommit.slice(0, 12)}`;
  const target = join(cacheRoot, name);
  if ((await headOf(target)) === expectedCommit) return target;
  await mkdir(cacheRoot, { recursive: true });
  const building = `${target}.building-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await copyTree(sourceDir, building);
    const commit = await commitInitialTree(building);
    if (commit !== expectedCommit) {
      throw new InputError(
        `${sourceDir} builds to commit ${commit}, but its record says ${expectedCommit}; regenerate the records (npm run generate in packages/env-swegym)`,
        { code: 'embedded-commit-mismatch' },
      );
    }
    // Another process may have finished the same repository meanwhile; only a broken one is replaced.
    if ((await headOf(target)) === expectedCommit) return target;
    await rm(target, { recursive: true, force: true });
    try {
      await rename(building, target);
    } catch (error) {
      // Another process put the same repository in place first.
      if ((await headOf(target)) !== expectedCommit) throw error;
    }
    return target;
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}
