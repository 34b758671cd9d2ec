import { mean, sampleStdDev, TrainSummary } from '@harness-s/core';
import { z } from 'zod';
import { RescueStudySummary } from '../rescue-study-summary.js';

const Rates = z.object({ passAtK: z.number(), avgAtK: z.number(), k: z.number().int() });

/** One line of `results.json`: a training run's summary and its evaluations after training. */
export const ResultRecord = TrainSummary.extend({
  /** `main` (the method comparison) or a router ablation of harness-s. */
  variant: z.enum(['main', 'fixed-profiles', 'rescue-4x2']),
  /** The training run folder, relative to the reproduction's folder. */
  runDir: z.string(),
  /** The trained policy under Rank-1 routing on the test split (harness-s main runs). */
  rank1: Rates.optional(),
  /** The trained policy under H0 on the same test attempts as `rank1` (paired seeds): its baseline. */
  rank1H0: Rates.optional(),
  /** The trained policy under other harness families, without further training. */
  families: z.record(z.string(), Rates).optional(),
  /** Share of test tasks whose Rank-1 choice is H0, with profiles anchored before and after training. */
  h0TopShare: z.object({ before: z.number(), after: z.number() }).optional(),
  /** `reproduce --rescue-study`: the study of the run's policy at its first, middle and last step. */
  rescueStudy: RescueStudySummary.optional(),
});
export type ResultRecord = z.infer<typeof ResultRecord>;

export const Results = z.object({ schemaVersion: z.literal(1), records: z.array(ResultRecord) });
export type Results = z.infer<typeof Results>;

/** The mean over seeds, and its spread (the sample standard deviation). */
export { mean, sampleStdDev as spread };
