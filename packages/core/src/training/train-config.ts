import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { AdvantageOptions } from './advantages.js';

/** The training methods the paper compares. */
export const TrainMethod = z.enum([
  /** Plain GRPO: K attempts under H0; all-failed groups stay (and carry no signal). */
  'grpo',
  /** An all-failed group triggers the same number of fresh attempts, still under H0. */
  'h0-resample',
  /**
   * Every task's K attempts are spread over a fixed mixture: H0 and the pool's first
   * `mixtureSize` variants (a pool lists its best variants first); no rescue.
   */
  'mixture',
  /** An all-failed group triggers rescue under distinct variants chosen by the router. */
  'harness-s',
]);
export type TrainMethod = z.infer<typeof TrainMethod>;

/** A training run's settings; `train --config` files and resolved configs use this shape. */
export const TrainConfig = z.strictObject({
  method: TrainMethod,
  /** Training steps (one batch of tasks each). */
  steps: z.number().int().positive(),
  /** Tasks per step. */
  batchSize: z.number().int().positive().default(8),
  /** Attempts per task under H0 (the group size). */
  k: z.number().int().positive().default(8),
  /** Shape of a rescue group: `variants` distinct harnesses x `attemptsPerVariant`; default K x 1. */
  rescue: z
    .strictObject({ variants: z.number().int().positive(), attemptsPerVariant: z.number().int().positive() })
    .optional(),
  /** `mixture`: how many of the pool's variants join H0 in the fixed mixture. */
  mixtureSize: z.number().int().positive().default(3),
  advantage: AdvantageOptions.default({ std: 'population', epsilon: 1e-6, zeroVariance: 'keep' }),
  /** How rescued trajectories are trained on: as rendered under their variant, or re-rendered under H0. */
  rescueContext: z.enum(['variant', 'h0']).default('h0'),
  /** Evaluate under H0 on the test split every N steps (and before the first and after the last). */
  evalEvery: z.number().int().positive().optional(),
  /**
   * `false`: no evaluation before the first step (the run's baseline, `initialEvalUnderH0`), e.g.
   * for a served model already evaluated under H0. Absent means true.
   */
  evalBefore: z.boolean().optional(),
  /** Attempts per test task in those evaluations (Pass@k, Avg@k). */
  evalK: z.number().int().positive().default(3),
  seed: z.number().int().nonnegative().default(0),
  /** Attempts in flight at once. */
  concurrency: z.number().int().positive().default(4),
  maxInfraRetries: z.number().int().nonnegative().default(2),
});
export type TrainConfig = z.infer<typeof TrainConfig>;
export type TrainConfigInput = z.input<typeof TrainConfig>;

/** The rescue shape with its default filled in (K variants x 1 attempt). */
export function rescueShape(config: TrainConfig): { variants: number; attemptsPerVariant: number } {
  return config.rescue ?? { variants: config.k, attemptsPerVariant: 1 };
}

/**
 * Refuses a method that rescues with (or mixes in) sibling harnesses when it has none: `pool` is
 * how many it has, or whether a pool was given at all (a command refusing before it loads one).
 */
export function requirePool(method: string, pool: number | boolean): void {
  if ((method === 'harness-s' || method === 'mixture') && !pool)
    throw new ConfigError(
      `method ${method} needs a sibling pool of harnesses (train --pool DIR, or the library's pool option; grow one with \`harness-s evolve --env ENV --out DIR\` or evolvePool); grpo and h0-resample need none`,
      { code: 'no-pool' },
    );
}
