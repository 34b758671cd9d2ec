import { z } from 'zod';

/** How group-relative advantages are computed (GRPO). */
export const AdvantageOptions = z.strictObject({
  /** Divide by the population (n) or the sample (n - 1) standard deviation. */
  std: z.enum(['population', 'sample']).default('population'),
  /** Added to the standard deviation, so a near-constant group does not explode. */
  epsilon: z.number().nonnegative().default(1e-6),
  /**
   * Groups whose rewards are all equal carry no signal: keep them at zero advantage (they still
   * count in token totals), or drop them from the batch.
   */
  zeroVariance: z.enum(['keep', 'drop']).default('keep'),
});
export type AdvantageOptions = z.infer<typeof AdvantageOptions>;

/** Advantages of one group, and whether the group carries any signal. */
export interface GroupAdvantages {
  advantages: number[];
  /** True when the rewards are not all equal (an effective group, for binary rewards). */
  hasSignal: boolean;
}

/** A_i = (r_i - mean(r)) / (std(r) + epsilon); all zeros when the rewards are all equal. */
export function groupAdvantages(rewards: readonly number[], options: AdvantageOptions): GroupAdvantages {
  const n = rewards.length;
  if (n === 0) return { advantages: [], hasSignal: false };
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / n;
  const squares = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0);
  const divisor = options.std === 'sample' ? n - 1 : n;
  const std = divisor > 0 ? Math.sqrt(squares / divisor) : 0;
  const hasSignal = rewards.some((reward) => reward !== rewards[0]);
  if (!hasSignal) return { advantages: rewards.map(() => 0), hasSignal };
  return { advantages: rewards.map((reward) => (reward - mean) / (std + options.epsilon)), hasSignal };
}
