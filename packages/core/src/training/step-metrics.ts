import { z } from 'zod';

const Usage = z.object({ attempts: z.number().int(), successes: z.number().int() });

/** One line of a training run's `metrics.jsonl`. */
export const StepMetrics = z.object({
  step: z.number().int().positive(),
  policyVersion: z.string(),
  /** Tasks in the batch: one group each, the base group or the rescue group that replaced it. */
  groups: z.number().int(),
  /** Groups with a scored attempt (the others were lost to infrastructure errors); absent in older runs. */
  retainedGroups: z.number().int().optional(),
  /** Retained groups with at least one success and one failure (the rate is over retained groups). */
  effectiveGroups: z.number().int(),
  effectiveGroupRate: z.number(),
  /** Policy (completion) tokens in effective groups / all retained policy tokens. */
  effectiveTokens: z.number().int(),
  retainedTokens: z.number().int(),
  effectiveTokenShare: z.number(),
  /** Groups whose attempts under H0 all failed. */
  rescueTriggered: z.number().int(),
  rescueTriggerRate: z.number(),
  /** Groups rescued (a rescue group replaced them): the triggered ones a rescue ran for; absent in older runs. */
  rescued: z.number().int().optional(),
  /** Rescue groups with at least one success. */
  rescueSucceeded: z.number().int(),
  /** Null when no rescue ran in the step. */
  rescueSuccessRate: z.number().nullable(),
  /** Zero-variance groups dropped from the update (when configured). */
  droppedGroups: z.number().int(),
  /** Mean reward of the retained attempts. */
  meanReward: z.number(),
  /** Success rate of the base attempts (under H0, or the mixture). */
  baseSuccessRate: z.number(),
  /** Attempts and successes per harness id, over base and rescue attempts. */
  harnessUsage: z.record(z.string(), Usage),
  /** Infrastructure errors met in the step (retried; unscored attempts are not trained on). */
  infraErrors: z.number().int(),
  /**
   * Attempts of the groups trained on that ended unscored after their retries, left out of their
   * groups (a replaced base group's are not counted); absent in older runs.
   */
  lostAttempts: z.number().int().optional(),
  trainer: z.record(z.string(), z.number()),
  durationMs: z.number(),
  /** Set on evaluation steps: the policy after this step, under H0, on the test split. */
  eval: z.object({ passAtK: z.number(), avgAtK: z.number(), k: z.number().int() }).optional(),
});
export type StepMetrics = z.infer<typeof StepMetrics>;
