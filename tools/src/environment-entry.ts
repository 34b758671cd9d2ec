import type { Environment } from '@harness-s/core';

/** Options shared by every command that opens episodes. */
export interface EnvironmentOptions {
  scoring?: string;
  /** Where dbbench episodes run: `pglite:` (default), `pglite:/folder`, `postgres://...`, `mysql://...`. */
  db?: string;
  /** Where swegym episodes run: `local` (default) or `docker`. */
  sandbox?: string;
  /** AppWorld environment servers (one task each at a time); the embedded world when absent. */
  appworldUrl?: string[];
  /**
   * Where the actions come from: `plan` when the policy walks the environment's own plans (the
   * simulated, oracle and empty policies), `model` when it writes them itself (default: the
   * cautious answer). A model's actions must run confined.
   */
  actionsFrom?: 'plan' | 'model';
  /** Run a model's actions where they are not confined (swegym `--sandbox local`), at the user's word. */
  unconfined?: boolean;
}

/** The options of `EnvironmentOptions` that a command's flags give (the rest are set by the command). */
export type EnvironmentFlag = 'scoring' | 'db' | 'sandbox' | 'appworldUrl' | 'unconfined';

/** What `harness-s cleanup` was asked (its flags). */
export interface CleanupFlags {
  env: string;
  /** dbbench: the server to clean, e.g. `postgres://user@host:5432/db`. */
  db?: string;
  /** swegym: only the containers of this run label. */
  run?: string;
  /** swegym: also containers of runs still alive on this machine. */
  all?: boolean;
}

/**
 * An environment the command line can run: its `--env` name, how to open it, and what the
 * commands around it need to know. The built-in ones are in `builtin-environments.ts`; a plug-in
 * adds its own (`registerEnvironment`, or `HARNESS_S_PLUGINS`, see `plugins.ts`).
 */
export interface EnvironmentEntry {
  /** The `--env` name, equal to the environment's `id`. */
  name: string;
  /** Opens the environment with the command's options (refusing the ones it cannot honour). */
  create(options: EnvironmentOptions): Environment;
  /**
   * The flags' options it honours. Another one given is refused before `create` runs, naming the
   * flag (`reproduce` of several environments gives each the ones it takes). Without this list every
   * option reaches `create`, which must refuse what it cannot honour.
   */
  options?: readonly EnvironmentFlag[];
  /**
   * `harness-s cleanup --env NAME`: removes what killed runs left behind, and says what, a line each.
   * A cleanup that needs a flag not given throws a ConfigError with code `missing-cleanup-flag`, which
   * `cleanup` without `--env` reports as skipped.
   */
  cleanup?(flags: CleanupFlags): Promise<string[]>;
  /**
   * Said when a second Ctrl-C exits before closing: how to remove what may be left behind. A
   * function of the run's options when that depends on them (nothing outlives an embedded
   * database); undefined there says nothing.
   */
  leftovers?: string | ((options: EnvironmentOptions) => string | undefined);
  /** Episodes are slow (whole test suites): `reproduce` gives it smaller budgets. */
  slow?: boolean;
}
