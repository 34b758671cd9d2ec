import { z } from 'zod';

/** One check an evaluator made, e.g. "answer matches label" or "table hash matches". */
export const Check = z.object({
  name: z.string(),
  passed: z.boolean(),
  /** What was expected and what was found, for failure analysis and reports. */
  detail: z.string().optional(),
});
export type Check = z.infer<typeof Check>;

/** The score of one episode. */
export const Evaluation = z.object({
  /** In [0, 1]. Binary for every environment so far. */
  reward: z.number().min(0).max(1),
  success: z.boolean(),
  checks: z.array(Check),
  /** Environment-specific details (the committed answer, the table hash...). */
  details: z.record(z.string(), z.unknown()).default({}),
});
export type Evaluation = z.infer<typeof Evaluation>;
