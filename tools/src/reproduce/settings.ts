import { findEnvironment } from '../environments.js';

/** How much work one environment gets in a reproduction. */
export interface EnvironmentBudget {
  /** Training steps per run. */
  steps: number;
  batchSize: number;
  /** Group size (attempts per task under H0); rescue is K variants x 1 attempt. */
  k: number;
  /** Attempts per test task in the evaluations under H0 (Pass@k / Avg@k). */
  evalK: number;
  /** Evaluate under H0 every N steps (the training curves). */
  evalEvery: number;
  /** Evolution rounds of the sibling pool. */
  evolveRounds: number;
  /** Attempts per validation task when profiling and evolving. */
  profileK: number;
  /** Re-anchor the adaptive router's profiles every N steps. */
  reanchorEvery: number;
}

/**
 * Budgets of the default run and of `--quick`. Sized for a 2-core machine with one training run
 * per core: the default (DBBench and AppWorld) finishes within 5 minutes, `--quick` within 2.
 * Re-anchoring profiles the whole pool on the validation tasks, as much work as a training run,
 * so the default re-anchors once, halfway. Slower environments (real test suites in sandboxes)
 * get smaller groups and fewer steps.
 */
export function budgetFor(env: string, quick: boolean): EnvironmentBudget {
  const slow = findEnvironment(env)?.slow === true;
  if (quick) {
    return slow
      ? { steps: 3, batchSize: 3, k: 4, evalK: 3, evalEvery: 3, evolveRounds: 1, profileK: 1, reanchorEvery: 2 }
      : { steps: 6, batchSize: 6, k: 8, evalK: 3, evalEvery: 3, evolveRounds: 1, profileK: 2, reanchorEvery: 3 };
  }
  return slow
    ? { steps: 6, batchSize: 4, k: 4, evalK: 3, evalEvery: 3, evolveRounds: 1, profileK: 2, reanchorEvery: 3 }
    : { steps: 12, batchSize: 8, k: 8, evalK: 3, evalEvery: 4, evolveRounds: 2, profileK: 2, reanchorEvery: 6 };
}

/**
 * The environments of a reproduction without `--envs`: the two whose episodes run in this
 * process. SWE-Gym runs real test suites in sandboxes (tens of process starts per attempt), so
 * its part alone takes longer than the whole default run; `--envs dbbench appworld swegym` adds it.
 */
export const defaultReproduceEnvs = ['dbbench', 'appworld'] as const;

/** The training methods compared, in table order. */
export const reproduceMethods = ['grpo', 'h0-resample', 'mixture', 'harness-s'] as const;
export type ReproduceMethod = (typeof reproduceMethods)[number];

/** The router ablations (method harness-s): the main run is adaptive profiles with K x 1 rescue. */
export const ablations = ['fixed-profiles', 'rescue-4x2'] as const;
export type Ablation = (typeof ablations)[number];

/** The rescue shape of the breadth ablation (`rescue-4x2`) for group size K: K/2 variants x 2 attempts. */
export const breadthAblationShape = (k: number) => ({ variants: Math.max(1, k / 2), attemptsPerVariant: 2 });

/**
 * How a harness-s run of a reproduction reads in every table and legend, for group size K:
 * `adaptive profiles, 8x1`, `fixed profiles, 8x1`, `adaptive profiles, 4x2`.
 */
export function routerArmLabel(variant: string, k: number): string {
  const breadth = breadthAblationShape(k);
  if (variant === 'main') return `adaptive profiles, ${k}x1`;
  if (variant === 'fixed-profiles') return `fixed profiles, ${k}x1`;
  if (variant === 'rescue-4x2') return `adaptive profiles, ${breadth.variants}x${breadth.attemptsPerVariant}`;
  return variant;
}
