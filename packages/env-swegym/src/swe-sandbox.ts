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
  93: "the workspace's own changes do not apply again",
  94: 'the working tree differs from its initial state after the reset',
  95: 'HEAD is not the base commit after the reset',
  96: 'processes survived the kill (a fork bomb still forking)',
};

export const describeResetFailure = (exitCode: number | null): string =>
  resetFailures[exitCode ?? -1] ?? `exit code ${exitCode}`;

/**
 * Records the initial state of the repository beyond its base commit, which a reset restores: the
 * untracked and ignored files present (build products such as compiled extensions in SWE-bench
 * images), and changes to tracked files the image was built with. Only what appears later is
 * removed by a reset.
 */
export function baselineScript(repoPath: string, scratchPath: string): string {
  const scratch = (name: string) => shellQuote(`${scratchPath}/${name}`);
  return [
    `mkdir -p ${shellQuote(scratchPath)}`,
    `cd ${shellQuote(repoPath)}`,
    `git clean -ndx | LC_ALL=C sort > ${scratch('baseline-untracked')}`,
    `git diff --binary HEAD > ${scratch('baseline.diff')}`,
    `git status --porcelain | LC_ALL=C sort > ${scratch('baseline-status')}`,
  ].join(' && ');
}

/**
 * Brings the repository back to its initial state: tracked files restored to the base commit (and
 * the workspace's own changes applied again), files that were not there at the start removed, and
 * the result verified against the recorded status.
 */
export function resetScript(repoPath: string, baseCommit: string, scratchPath: string): string {
  const base = shellQuote(baseCommit);
  const scratch = (name: string) => shellQuote(`${scratchPath}/${name}`);
  return [
    `cd ${shellQuote(repoPath)} || exit 90`,
    `git checkout -q -f --detach ${base} || exit 91`,
    `git reset -q --hard ${base} || exit 92`,
    `touch ${scratch('baseline-untracked')} ${scratch('baseline.diff')} ${scratch('baseline-status')}`,
    `git clean -ndx | LC_ALL=C sort > ${scratch('untracked-now')}`,
    `LC_ALL=C comm -13 ${scratch('baseline-untracked')} ${scratch('untracked-now')} | sed 's/^Would remove //' | while IFS= read -r path; do rm -rf -- "$path"; done`,
    `if [ -s ${scratch('baseline.diff')} ]; then git apply --binary ${scratch('baseline.diff')} || exit 93; fi`,
    `test "$(git status --porcelain | LC_ALL=C sort)" = "$(cat ${scratch('baseline-status')})" || exit 94`,
    `test "$(git rev-parse HEAD)" = ${base} || exit 95`,
  ].join('\n');
}
