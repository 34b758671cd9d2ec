import type { ExecOptions, ExecResult } from '@harness-s/core';
import { simpleGit } from 'simple-git';
import { shellJoin } from './shell.js';

/** The outcome of one git command. */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs git in one repository, wherever that repository lives. */
export interface GitRunner {
  run(args: readonly string[]): Promise<GitResult>;
}

/** Git commands of a long operation (a diff of a large repository) still end. */
const gitTimeoutMs = 120_000;

/** Git in a repository on this machine, through simple-git. */
export function hostGit(repoPath: string): GitRunner {
  return {
    async run(args) {
      // One client per call, so the error hook below can hand this call's exit code back.
      let outcome: { exitCode: number; stderr: string } = { exitCode: 0, stderr: '' };
      const client = simpleGit({
        baseDir: repoPath,
        timeout: { block: gitTimeoutMs },
        errors(error, result) {
          // A non-zero exit is an ordinary result here (a patch that does not apply), not a throw;
          // only a git that could not run at all (no exit code) is an error.
          if (typeof result.exitCode !== 'number' || result.exitCode <= 0) return error;
          outcome = { exitCode: result.exitCode, stderr: Buffer.concat(result.stdErr).toString('utf8') };
          return undefined;
        },
      });
      const stdout = await client.raw([...args]);
      return { exitCode: outcome.exitCode, stdout, stderr: outcome.stderr };
    },
  };
}

/** Git inside a sandbox (a container), through the sandbox's exec. */
export function sandboxGit(
  exec: (command: string, options?: ExecOptions) => Promise<ExecResult>,
  repoPath: string,
): GitRunner {
  return {
    async run(args) {
      const result = await exec(shellJoin(['git', ...args]), { cwd: repoPath, timeoutMs: gitTimeoutMs });
      return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
    },
  };
}

/** A patch taken from a working tree, as SWE-bench harnesses take it. */
export interface ExtractedPatch {
  /** The unified diff against the base commit; empty when nothing changed. */
  patch: string;
  /** Binary files that were changed but left out of the patch. */
  skippedBinaryFiles: string[];
  /** Set when the working tree could not be read (a deleted `.git`, a broken index). */
  error?: string;
}

/**
 * The changes of the working tree against the base commit: `git add -A`, binary files unstaged,
 * then `git diff --cached <base_commit>`. Commits the agent made are included, since the diff is
 * taken against the base commit rather than HEAD.
 */
export async function extractPatch(git: GitRunner, baseCommit: string): Promise<ExtractedPatch> {
  const add = await git.run(['add', '-A']);
  if (add.exitCode !== 0)
    return { patch: '', skippedBinaryFiles: [], error: `git add -A failed: ${add.stderr.trim()}` };
  const numstat = await git.run(['diff', '--cached', '--numstat', '--no-renames', '-z', baseCommit]);
  if (numstat.exitCode !== 0) {
    return { patch: '', skippedBinaryFiles: [], error: `git diff --numstat failed: ${numstat.stderr.trim()}` };
  }
  // With -z each record is "added\tdeleted\tpath\0"; binary files count "-" lines.
  const skippedBinaryFiles = numstat.stdout
    .split('\0')
    .filter((record) => record.startsWith('-\t-\t'))
    .map((record) => record.slice(4));
  for (const path of skippedBinaryFiles) await git.run(['reset', '-q', baseCommit, '--', path]);
  const diff = await git.run(['diff', '--cached', '--no-color', '--no-ext-diff', baseCommit]);
  if (diff.exitCode !== 0) {
    return { patch: '', skippedBinaryFiles, error: `git diff --cached failed: ${diff.stderr.trim()}` };
  }
  return { patch: diff.stdout, skippedBinaryFiles };
}

/** How a patch was applied: the rung of the SWE-bench ladder that worked. */
export type ApplyMethod = 'git apply --verbose' | 'git apply --verbose --reject' | 'patch --batch --fuzz=5 -p1 -i';

export interface ApplyOutcome {
  applied: boolean;
  method: ApplyMethod | null;
  /** What each tried command printed, for the report. */
  log: string;
}

/**
 * Applies a patch file with SWE-bench's ladder: `git apply --verbose`, then with `--reject`, then
 * `patch --batch --fuzz=5 -p1 -i`. Between rungs the tracked and untracked files are restored, so a
 * rung never starts from the half-applied leftovers of the one before.
 */
export async function applyPatchFile(
  git: GitRunner,
  exec: (command: string, options?: ExecOptions) => Promise<ExecResult>,
  repoPath: string,
  patchPath: string,
): Promise<ApplyOutcome> {
  const rungs: Array<{ method: ApplyMethod; run: () => Promise<GitResult> }> = [
    { method: 'git apply --verbose', run: () => git.run(['apply', '--verbose', patchPath]) },
    { method: 'git apply --verbose --reject', run: () => git.run(['apply', '--verbose', '--reject', patchPath]) },
    {
      method: 'patch --batch --fuzz=5 -p1 -i',
      run: async () => {
        const result = await exec(shellJoin(['patch', '--batch', '--fuzz=5', '-p1', '-i', patchPath]), {
          cwd: repoPath,
          timeoutMs: gitTimeoutMs,
        });
        return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
      },
    },
  ];
  const log: string[] = [];
  for (const rung of rungs) {
    const result = await rung.run();
    log.push(`$ ${rung.method}\n${result.stdout}${result.stderr}`.trimEnd());
    if (result.exitCode === 0) return { applied: true, method: rung.method, log: log.join('\n') };
    await git.run(['reset', '-q', '--hard']);
    await git.run(['clean', '-qfd']);
  }
  return { applied: false, method: null, log: log.join('\n') };
}

/** Paths a unified diff touches (`diff --git a/X b/Y` headers), as SWE-bench finds test files. */
export function patchedFiles(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    if (match[2]) files.add(match[2]);
  }
  return [...files];
}
