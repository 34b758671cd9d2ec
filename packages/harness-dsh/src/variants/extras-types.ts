import type { Action, HarnessSpec, Task, Trajectory } from '@harness-s/core';

/**
 * A tool transform: harness code between the policy and the environment that turns what the
 * policy asks for into base actions of the same environment (so a trajectory under it replays
 * under H0). It either runs actions before the policy's first turn (`prelude`) or expands one
 * decoded action into several (`expand`).
 */
export interface ToolTransform {
  /** Named in `HarnessSpec.tools[].kind`, e.g. `schema-lookup`. */
  readonly kind: string;
  /** The skill whose right branch it performs mechanically, if any (written to the spec's `skill`). */
  readonly skill?: string;
  /** The repair direction it serves. */
  readonly direction: string;
  /** What it does, for reports and variant descriptions. */
  readonly description: string;
  /** What the harness tells the policy about it: a directive added to the system prompt with it. */
  readonly note: string;
  /** The environment tools its added actions call; each must be a tool of the environment. */
  readonly emits: readonly string[];
  /**
   * Actions to run before the first turn, and the thought the transcript shows with them.
   * `language` is the harness's code language, as for `expand`.
   */
  prelude?(
    task: Task,
    options: Readonly<Record<string, unknown>>,
    language?: string,
  ): { actions: Action[]; thought: string } | null;
  /**
   * The base actions one decoded action becomes, in order, including the action itself; null
   * leaves the action as it is. The added actions' observations say they are the harness's.
   * `language` is the harness's code language (`EnvironmentExtras.codeLanguage`), if it has one.
   */
  expand?(action: Action, options: Readonly<Record<string, unknown>>, language?: string): Action[] | null;
  /**
   * The code languages it works in, when it writes code; a harness in another language cannot
   * have it (evolution does not propose it, and a spec that names it is refused).
   */
  readonly languages?: readonly string[];
  /**
   * `expand` rewrites the action in place (one action, standing for the policy's own, whose
   * observation is not labelled as the harness's) instead of adding actions around it.
   */
  readonly rewrites?: boolean;
}

/** A failure signal an environment can read in a failed trajectory, before it gets a direction. */
export interface FailureSignal {
  /** e.g. `skipped-inspection`, `unquoted-identifier`, `wrong-answer`. */
  kind: string;
  /** The skill that would have avoided it, when the signal points at one. */
  skill?: string;
  /** What in the trajectory shows it (turn, error text, check detail). */
  evidence: string;
}

/**
 * What the variant operators and the failure analysis know about one environment beyond the core
 * contract: its tool transforms, which actions change its state, better directive wordings, how
 * its skills group into repair directions, and failure signals only it can read. Every part is
 * optional: an environment with no extras still gets the generic operators and analysis.
 */
export interface EnvironmentExtras {
  readonly env: string;
  readonly transforms: readonly ToolTransform[];
  /** Whether an action changes the environment's state; enables `execution.verifyAfterChange`. */
  changesState?(action: Action): boolean;
  /** The skill a verification reminder after a change asks for. */
  readonly verificationSkill?: string;
  /** The skill a retry after an error asks for. */
  readonly recoverySkill?: string;
  /** Directive wordings per skill, preferred first, instead of the generic wording. */
  readonly directiveTexts?: Readonly<Record<string, readonly string[]>>;
  /** The repair direction of each skill; a skill not listed is its own direction. */
  readonly skillDirections?: Readonly<Record<string, string>>;
  /**
   * The language a harness's code actions are written in, for environments whose actions are code
   * (AppWorld: JavaScript for the embedded world, Python for the real server).
   */
  codeLanguage?(spec: HarnessSpec): string | undefined;
  /** Environment-specific failure signals of a failed trajectory. */
  failureSignals?(trajectory: Trajectory): FailureSignal[];
}
