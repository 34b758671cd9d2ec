import type { Action, StepResult } from './action.js';
import type { HarnessSpec } from './harness-spec.js';
import type { AssistantMessage, Message, ToolSpec } from './message.js';
import type { Task } from './task.js';

/** An action decoded from an assistant message, with the tool-call id it answers (if any). */
export interface DecodedAction {
  action: Action;
  callId?: string;
  /**
   * Set when the harness answers the call itself, without an environment step (a `think` tool of a
   * code-act harness). Such a call is not an environment action and is not recorded as one.
   */
  harnessResult?: StepResult;
}

/**
 * Environment actions a harness runs on the policy's behalf before its first turn (a tool
 * transform such as a schema lookup), written as an assistant message in the codec's shape so the
 * transcript reads as if the policy had made the calls.
 */
export interface PreludeTurn {
  message: AssistantMessage;
  actions: DecodedAction[];
}

/** The codec's reading of one assistant message. */
export type DecodedTurn = { ok: true; actions: DecodedAction[] } | { ok: false; error: string };

/** One executed action, for building the observation message. */
export interface ExecutedAction extends DecodedAction {
  result: StepResult;
}

/**
 * Maps assistant messages to environment actions and back. `encode` is the inverse of `decode`,
 * which lets a scripted or simulated policy speak through any codec, and lets a trajectory's
 * actions be re-rendered under another harness.
 */
export interface ActionCodec {
  readonly kind: string;
  /** The tools offered to the policy through the chat API (none for text codecs). */
  apiTools(envTools: readonly ToolSpec[]): ToolSpec[];
  decode(message: AssistantMessage, envTools: readonly ToolSpec[]): DecodedTurn;
  encode(actions: readonly Action[], thought?: string): AssistantMessage;
  /**
   * The protocol holds one action per reply (AgentBench's and mini-swe-agent's text protocols): a
   * turn with several actions, as a tool transform that expands a call makes, is re-rendered under
   * it as one turn per action.
   */
  readonly oneActionPerTurn?: boolean;
}

/**
 * A harness ready to drive episodes: built from a HarnessSpec by the harness package.
 * The agent loop only talks to this interface.
 */
export interface Harness {
  readonly spec: HarnessSpec;
  readonly codec: ActionCodec;
  /** The opening messages: system prompt (with directives) and the task. */
  start(task: Task, envTools: readonly ToolSpec[]): Message[];
  /** The messages the policy sees, with the context rules applied to the full transcript. */
  render(transcript: readonly Message[]): Message[];
  /** The messages that answer the executed actions of a turn (tool results or a user message). */
  observe(executed: readonly ExecutedAction[]): Message[];
  /** The message that answers a turn the codec could not decode. */
  formatError(error: string): Message[];
  /** Actions to run before the policy's first turn, or null (most harnesses have none). */
  prelude?(task: Task, envTools: readonly ToolSpec[]): PreludeTurn | null;
}

/** Whether a value is a runnable `Harness` (a harness spec is data, not one: see `createHarness`). */
export function isHarness(value: unknown): value is Harness {
  const harness = value as Partial<Harness> | null | undefined;
  return typeof harness?.spec?.id === 'string' && typeof harness.start === 'function';
}
