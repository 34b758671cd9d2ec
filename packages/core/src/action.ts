import { z } from 'zod';

/**
 * An environment action: a call of one of the tools the episode offers, with parsed arguments.
 * Every environment speaks this one shape (`execute_sql`, `bash`, `execute`, `submit`...), so
 * harness codecs and transforms can map any policy output onto it and a trajectory can be replayed.
 */
export const Action = z.object({
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
export type Action = z.infer<typeof Action>;

/** What an episode answers to one action. */
export const StepResult = z.object({
  /** The observation text, in the environment's own format (before any harness truncation). */
  observation: z.string(),
  /** True when the action ended the episode (an answer was committed, a patch submitted). */
  done: z.boolean(),
  /**
   * Set when the action failed inside the environment (an SQL error, a non-zero exit, an API
   * error). This is an ordinary observation for the policy, kept as data for failure analysis.
   */
  error: z.object({ kind: z.string(), message: z.string() }).optional(),
});
export type StepResult = z.infer<typeof StepResult>;
