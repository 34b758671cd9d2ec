import { z } from 'zod';
import { Action, StepResult } from './action.js';
import { Evaluation } from './evaluation.js';
import { Message, ToolCall, ToolSpec, Usage } from './message.js';

/** Why an episode ended. */
export const StopReason = z.enum([
  /** An action ended the episode (answer committed, patch submitted). */
  'done',
  /** The harness's step limit was reached. */
  'step-limit',
  /** Too many consecutive turns the codec could not decode. */
  'format-error-limit',
  /** The environment or the policy server failed on every try; the attempt is not scored. */
  'infrastructure-error',
]);
export type StopReason = z.infer<typeof StopReason>;

export const DecisionRecord = z.object({
  skill: z.string(),
  right: z.boolean(),
  probability: z.number(),
  cue: z.number(),
  hardness: z.number().optional(),
  byHarness: z.boolean().optional(),
});

export const ActionRecord = z.object({
  action: Action,
  callId: z.string().optional(),
  result: StepResult,
  latencyMs: z.number(),
});
export type ActionRecord = z.infer<typeof ActionRecord>;

/** One assistant turn: what the policy said, what was decoded from it, what happened. */
export const TurnRecord = z.object({
  index: z.number().int().nonnegative(),
  response: z.object({ content: z.string(), toolCalls: z.array(ToolCall).optional() }),
  usage: Usage,
  latencyMs: z.number(),
  decisions: z.array(DecisionRecord).optional(),
  completionTokenIds: z.array(z.number().int()).optional(),
  /** Log-probabilities of the completion's tokens under the policy that sampled it, when the server returns them. */
  completionLogprobs: z.array(z.number()).optional(),
  /** The reply stopped at the model's token limit, so its text is cut (a served model's `finish_reason: length`). */
  cutOff: z.literal(true).optional(),
  /** The thinking a reasoning model's server returned apart from the reply (not in `messages`). */
  reasoning: z.string().optional(),
  /** Set when the codec could not decode the turn. */
  formatError: z.string().optional(),
  actions: z.array(ActionRecord),
  /**
   * `harness` for actions a tool transform ran on the policy's behalf before its first turn: no
   * usage, no decisions, not counted toward the step limit. Absent for the policy's own turns.
   */
  origin: z.literal('harness').optional(),
});
export type TurnRecord = z.infer<typeof TurnRecord>;

export const InfraErrorRecord = z.object({
  /** 0 for the first try of the attempt. */
  try: z.number().int().nonnegative(),
  code: z.string(),
  message: z.string(),
});
export type InfraErrorRecord = z.infer<typeof InfraErrorRecord>;

/**
 * Everything about one attempt at one task: the full transcript, every action and observation,
 * the evaluation, timings and token counts. One JSON line in a run's `trajectories.jsonl`.
 */
export const Trajectory = z.object({
  schemaVersion: z.literal(1),
  /** `<taskId>#<harnessId>#<attempt>`, unique within a run. */
  id: z.string(),
  runId: z.string(),
  env: z.string(),
  split: z.string(),
  taskId: z.string(),
  harnessId: z.string(),
  policyId: z.string(),
  policyVersion: z.string(),
  /** 0-based attempt number of this task under this harness. */
  attempt: z.number().int().nonnegative(),
  seed: z.number().int(),
  /** The complete transcript (before context rules), as the harness built it. */
  messages: z.array(Message),
  /**
   * The tools offered to the model with every turn (the harness's codec applied to the episode's
   * tools), as a chat template renders them. Absent in runs recorded before it was kept.
   */
  tools: z.array(ToolSpec).optional(),
  turns: z.array(TurnRecord),
  stopReason: StopReason,
  /** Null only when the attempt ended in an infrastructure error. */
  evaluation: Evaluation.nullable(),
  usage: Usage,
  timings: z.object({
    startedAt: z.string(),
    openMs: z.number(),
    evaluateMs: z.number(),
    totalMs: z.number(),
  }),
  /** Infrastructure errors met on earlier tries of this attempt (and the last, if it failed). */
  infraErrors: z.array(InfraErrorRecord),
  /** Set for attempts made by the training loop. */
  training: z
    .object({
      step: z.number().int().nonnegative(),
      /** `<step>:<taskId>`; every attempt at a task in a step belongs to one group. */
      groupId: z.string(),
      /** `base`: the K attempts under H0 (or the mixture); `rescue`: attempts that replaced them. */
      role: z.enum(['base', 'rescue']),
      /** Whether this attempt is in the group that was kept for the update. */
      retained: z.boolean(),
      /** Its group-relative advantage, when retained and in the update. */
      advantage: z.number().optional(),
      /**
       * Retained, but left out of the update because its group's rewards were all equal
       * (`advantage.zeroVariance: 'drop'`): no advantage, and not exported.
       */
      dropped: z.boolean().optional(),
    })
    .optional(),
  /**
   * Where the attempt ran when not in the run's own process: the rollout worker whose result the
   * run took, as `name@host:pid`.
   */
  ranOn: z.string().optional(),
});
export type Trajectory = z.infer<typeof Trajectory>;

/** Whether the attempt counts for metrics: infrastructure failures are never scored. */
export function isScored(trajectory: Trajectory): trajectory is Trajectory & { evaluation: Evaluation } {
  return trajectory.evaluation !== null;
}

export function trajectoryId(taskId: string, harnessId: string, attempt: number): string {
  return `${taskId}#${harnessId}#${attempt}`;
}
