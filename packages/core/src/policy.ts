import type { Harness } from './harness.js';
import type { AssistantMessage, Message, ToolSpec, Usage } from './message.js';
import type { OraclePlan } from './plan.js';
import type { Task } from './task.js';

/** A choice the simulated policy made at a decision point; its GRPO trainer learns from these. */
export interface Decision {
  skill: string;
  /** True when the right branch was taken. */
  right: boolean;
  /** Probability of the right branch at the moment of choosing. */
  probability: number;
  /** The cue bias the context gave this skill (0 without one). */
  cue: number;
  /** The decision point's hardness, subtracted from the logit (absent when 0). */
  hardness?: number;
  /**
   * The harness performed this skill (a tool transform) and the policy made no choice; `right` is
   * true and `probability` 1. Re-rendered under H0 the trajectory shows the policy doing it.
   */
  byHarness?: boolean;
}

/** What the policy is asked on each turn. */
export interface PolicyRequest {
  messages: Message[];
  tools: ToolSpec[];
  signal?: AbortSignal;
}

/** What the policy answered. */
export interface PolicyResponse {
  message: AssistantMessage;
  usage: Usage;
  /** Decision points resolved on this turn (simulated policy only). */
  decisions?: Decision[];
  /** Token ids of the completion, when the server returns them. */
  completionTokenIds?: number[];
  /** Per-token log-probabilities of the completion, when the server returns them. */
  completionLogprobs?: number[];
  /** The completion stopped at the token limit: its text is cut (`finish_reason: length`). */
  cutOff?: boolean;
  /**
   * A reasoning model's thinking, when the server returns it apart from the message (a reasoning
   * parser). Recorded on the turn; the conversation goes on without it, as chat templates do.
   */
  reasoning?: string;
}

/** Everything a policy may know about an episode before its first turn. */
export interface EpisodeContext {
  task: Task;
  harness: Harness;
  envTools: readonly ToolSpec[];
  /** Seed for this attempt, derived from the run seed, task, harness and attempt number. */
  seed: number;
  /**
   * Privileged information: the environment's oracle plan (or its empty plan). Only the oracle,
   * the empty and the simulated policies read it; a real model never sees it.
   */
  plan?: OraclePlan;
}

/** One episode's conversation with the policy. */
export interface PolicySession {
  respond(request: PolicyRequest): Promise<PolicyResponse>;
}

/** An agent policy: an LLM behind an endpoint, the simulated policy, the oracle. */
export interface Policy {
  /** e.g. `sim`, `oracle`, `openai:gpt-4o-mini`. */
  readonly id: string;
  /** Changes whenever the parameters change (training steps). */
  readonly version: string;
  /**
   * Which privileged plan `startEpisode` needs in its context: the environment's oracle plan, its
   * empty plan (finish at once, doing nothing), or none (a real model).
   */
  readonly needsPlan: false | 'oracle' | 'empty';
  startEpisode(context: EpisodeContext): PolicySession;
  /** Settings worth recording in a run's config. */
  describe(): Record<string, unknown>;
}
