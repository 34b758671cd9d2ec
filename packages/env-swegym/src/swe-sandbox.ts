import type { ExecOptions, ExecResult, Sandbox, SandboxProvider } from '@harness-s/core';
import type { GitRunner } from './git.js';
import { shellQuote } from './shell.js';

/**
 * Where a sandbox's repository comes from and which commit is its initial state.
 *
 * - `image`: the repository is already inside the image at `repoPath` (SWE-bench/SWE-Gym images,
 *   with the repository at `/testbed`).
 * - `host`: a git repository on this machine is copied in (the embedded instances; a local
 *   checkout of a real repository for the local sandbox).
 */
export type Workspace =
  | { kind: 'image'; repoPath: string; baseCommit: string }
  | { kind: 'host'; hostRepo: string; repoPath: string; baseCommit: string };

/** Two workspaces with the same key start from the same files. */
export const workspaceKey = (workspace: Workspace): string =>
  workspace.kind === 'image'
    ? `image:${workspace.repoPath}@${workspace.baseCommit}`
    : `host:${workspace.hostRepo}@${workspace.baseCommit}`;

/** Labels every SWE-Gym container carries, so `harness-s cleanup --env swegym` finds leftovers. */
export const sandboxLabels = {
  managed: 'harness-s.managed',
  env: 'harness-s.env',
  run: 'harness-s.run',
  ownerPid: 'harness-s.owner-pid',
  ownerHost: 'harness-s.owner-host',
} as const;

/** A sandbox that holds one repository: the core sandbox plus the workspace lifecycle. */
export interface SweSandbox extends Sandbox {
  readonly kind: 'local' | 'docker';
  /** The image the sandbox runs (null for the local sandbox). */
  readonly image: string | null;
  /** Where the repository is, as commands inside the sandbox see it. */
  readonly repoPath: string;
  /** A directory outside the repository for patches and bookkeeping. */
  readonly scratchPath: string;
  /** The workspace the sandbox was last prepared for; `reset()` returns to it. */
  readonly workspace: Workspace | null;
  /** Puts the workspace's repository in place at its base commit; `reset()` then returns here. */
  prepare(workspace: Workspace): Promise<void>;
  /** Git commands in the repository (simple-git for the local sandbox, `git` inside a container). */
  git(): GitRunner;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
}

/** Creates SWE sandboxes of one kind. */
export interface SweSandboxProvider extends SandboxProvider {
  readonly kind: 'local' | 'docker';
  create(options: { image?: string; labels?: Record<string, string> }): Promise<SweSandbox>;
  /** Releases clients and timers (not sandboxes: those are destroyed one by one). */
  close(): Promise<void>;
}

/** Environment every command gets: no pagers waiting for a terminal, no bytecode files in the repository. */
export const commandEnvironment: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  MANPAGER: 'cat',
  LESS: '-R',
  PIP_PROGRESS_BAR: 'off',
  TQDM_DISABLE: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** Exit codes of the reset script, so a failed reset says which step failed. */
const resetFailures: Record<number, string> = {
  90: 'the repository directory is gone',
  91: 'the base commit cannot be checked out',
  92: 'git reset --hard failed',
  93: 'git clean failed',
  94: 'the working tree is still dirty after the reset',
  95: 'HEAD is not the base commit after the reset',
};

export const describeResetFailure = (exitCode: number | null): string =>
  resetFailures[exitCode ?? -1] ?? `exit code ${exitCode}`;

/**
 * Records the ignored files present in the pristine repository (build products such as compiled
 * extensions in SWE-bench images), so a reset removes only ignored files made afterwards.
 */
export function baselineScript(repoPath: string, scratchPath: string): string {
  return [
    `mkdir -p ${shellQuote(scratchPath)}`,
    `cd ${shellQuote(repoPath)}`,
    `git clean -ndX | LC_ALL=C sort > ${shellQuote(`${scratchPath}/baseline-ignored`)}`,
  ].join(' && ');
}

/**
 * Brings the repository back to the base commit: tracked files restored, untracked files removed,
 * ignored files that were not there at the start removed, and the result verified.
 */
export function resetScript(repoPath: string, baseCommit: string, scratchPath: string): string {
  const base = shellQuote(baseCommit);
  const baseline = shellQuote(`${scratchPath}/baseline-ignored`);
  const now = shellQuote(`${scratchPath}/ignored-now`);
  return [
    `cd ${shellQuote(repoPath)} || exit 90`,
    `git checkout -q -f --detach ${base} || exit 91`,
    `git reset -q --hard ${base} || exit 92`,
    'git clean -qfd || exit 93',
    `touch ${baseline}`,
    `git clean -ndX | LC_ALL=C sort > ${now}`,
    `LC_ALL=C comm -13 ${baseline} ${now} | sed 's/^Would remove //' | while IFS= read -r path; do rm -rf -- "$path"; done`,
    'test -z "$(git status --porcelain)" || exit 94',
    `test "$(git rev-parse HEAD)" = ${base} || exit 95`,
  ].join('\n');
}
