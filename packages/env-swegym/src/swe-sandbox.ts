import {
  type ExecOptions,
  type ExecResult,
  InfrastructureError,
  type Sandbox,
  type SandboxProvider,
} from '@harness-s/core';
import type { GitRunner } from './git.js';

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
  /**
   * Whether `reset()` brings back everything an episode can change that a later episode could see,
   * so that the sandbox may serve another episode. A sandbox that is not reusable serves one.
   */
  readonly reusable: boolean;
  /** Puts the workspace's repository in place at its base commit; `reset()` then returns here. */
  prepare(workspace: Workspace): Promise<void>;
  /**
   * Returns to the workspace's initial state, from nothing the sandbox's commands could have
   * written: the repository comes again from its source. Throws (code `reset-unsupported`) when
   * the sandbox cannot do that in place; it is then replaced by a new one.
   */
  reset(): Promise<void>;
  /**
   * Why the sandbox can no longer run commands (its process table is full, its container stopped),
   * or null while it can. Asked after a command that looks like it could not start.
   */
  whyUnusable(): Promise<string | null>;
  /** Git commands in the repository (simple-git for the local sandbox, `git` inside a container). */
  git(): GitRunner;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
}

/** Creates SWE sandboxes of one kind. */
export interface SweSandboxProvider extends SandboxProvider {
  readonly kind: 'local' | 'docker';
  /**
   * A new sandbox. `repository` is the kind of workspace it will hold (default `host`, a
   * repository copied in from this machine); containers for an image's repository are made apart.
   */
  create(options: {
    image?: string;
    labels?: Record<string, string>;
    repository?: Workspace['kind'];
  }): Promise<SweSandbox>;
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

/** The code of the error a sandbox throws when it stopped working and must be replaced. */
export const sandboxUnusableCode = 'sandbox-unusable';

/**
 * A sandbox that can no longer run commands (its process table is full, its container stopped).
 * The episode replaces it and tells the agent why: `reason` is that explanation.
 */
export class SandboxUnusableError extends InfrastructureError {
  constructor(
    readonly sandboxId: string,
    readonly reason: string,
  ) {
    super(`sandbox ${sandboxId} stopped working: ${reason}`, { code: sandboxUnusableCode });
    this.name = 'SandboxUnusableError';
  }
}

/** Whether an error says that a sandbox stopped working and must be replaced. */
export const isSandboxUnusable = (error: unknown): error is SandboxUnusableError =>
  InfrastructureError.isInstance(error) &&
  error.code === sandboxUnusableCode &&
  typeof (error as { reason?: unknown }).reason === 'string';
