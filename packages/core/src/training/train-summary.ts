import { z } from 'zod';
import { EvalPoint, type TrainTotals } from './train-store.js';

/** `summary.json` of a training run; every rate is a fraction in [0, 1] over the whole run. */
export const TrainSummary = z.object({
  schemaVersion: z.literal(1),
  method: z.string(),
  env: z.string(),
  seed: z.number().int(),
  steps: z.number().int(),
  k: z.number().int(),
  policyVersion: z.string(),
  /** The trained policy under H0 on the test split (after the last step). */
  evalUnderH0: z.object({ passAtK: z.number(), avgAtK: z.number(), k: z.number().int() }),
  /** The policy before training, evaluated the same way. */
  initialEvalUnderH0: z.object({ passAtK: z.number(), avgAtK: z.number(), k: z.number().int() }).nullable(),
  evals: z.array(EvalPoint),
  effectiveGroupRate: z.number().min(0).max(1),
  effectiveTokenShare: z.number().min(0).max(1),
  /**
   * All-failed base groups / groups, for every method: the groups that trigger rescue in
   * `harness-s` and `h0-resample` (for grpo and mixture they stay as they are).
   */
  rescueTriggerRate: z.number().min(0).max(1),
  /**
   * Rescue groups with a success / rescue groups; null when the run rescued no group (grpo and
   * mixture never do). Runs written before it could be null say 0.
   */
  rescueSuccessRate: z.number().min(0).max(1).nullable(),
  meanReward: z.number().min(0).max(1),
  /** Attempts and successes per harness id over the whole run, base and rescue attempts (absent in older runs). */
  harnessUsage: z.record(z.string(), z.object({ attempts: z.number().int(), successes: z.number().int() })).optional(),
  infraErrors: z.number().int(),
  /**
   * Groups left out of the update because their rewards were all equal (`advantage.zeroVariance:
   * 'drop'`); absent when none were. They count in the effective-group rate, as groups without signal.
   */
  droppedGroups: z.number().int().optional(),
  trainTasks: z.number().int(),
  testTasks: z.number().int(),
  /** Wall time of the whole run, over every session of a resumed one (up to its last checkpoint before each kill). */
  durationMs: z.number(),
});
export type TrainSummary = z.infer<typeof TrainSummary>;

/** Per-harness attempts and successes summed over steps. */
export function sumHarnessUsage(
  steps: ReadonlyArray<{ harnessUsage: Readonly<Record<string, { attempts: number; successes: number }>> }>,
): Record<string, { attempts: number; successes: number }> {
  const usage: Record<string, { attempts: number; successes: number }> = {};
  for (const step of steps) {
    for (const [harnessId, { attempts, successes }] of Object.entries(step.harnessUsage)) {
      const sum = usage[harnessId] ?? { attempts: 0, successes: 0 };
      usage[harnessId] = { attempts: sum.attempts + attempts, successes: sum.successes + successes };
    }
  }
  return usage;
}

const ratio = (numerator: number, denominator: number): number => (denominator > 0 ? numerator / denominator : 0);

/** The run-wide rates from the running totals. */
export function totalsRates(totals: TrainTotals) {
  return {
    // Over retained groups, as in DESIGN: a group lost entirely to infrastructure errors is no group.
    effectiveGroupRate: ratio(totals.effectiveGroups, totals.retainedGroups ?? totals.groups),
    effectiveTokenShare: ratio(totals.effectiveTokens, totals.retainedTokens),
    rescueTriggerRate: ratio(totals.rescueTriggered, totals.groups),
    rescueSuccessRate: totals.rescued > 0 ? totals.rescueSucceeded / totals.rescued : null,
    meanReward: ratio(totals.retainedReward, totals.retainedAttempts),
  };
}

/** Under H0, a point's Pass@k and Avg@k as the summary gives them. */
const underH0 = (point: EvalPoint) => ({ passAtK: point.passAtK, avgAtK: point.avgAtK, k: point.k });

/** A run's summary from its totals, evaluations and per-harness usage. */
export function trainSummary(run: {
  config: { method: TrainSummary['method']; seed: number; steps: number; k: number; evalK: number };
  env: string;
  policyVersion: string;
  totals: TrainTotals;
  evals: EvalPoint[];
  harnessUsage: TrainSummary['harnessUsage'];
  droppedGroups?: number;
  trainTasks: number;
  testTasks: number;
  durationMs: number;
}): TrainSummary {
  const { config, evals } = run;
  const final = evals.at(-1);
  const initial = evals.find((point) => point.step === 0);
  return {
    schemaVersion: 1,
    method: config.method,
    env: run.env,
    seed: config.seed,
    steps: config.steps,
    k: config.k,
    policyVersion: run.policyVersion,
    evalUnderH0: final ? underH0(final) : { passAtK: 0, avgAtK: 0, k: config.evalK },
    initialEvalUnderH0: initial ? underH0(initial) : null,
    evals,
    ...totalsRates(run.totals),
    harnessUsage: run.harnessUsage,
    infraErrors: run.totals.infraErrors,
    ...(run.droppedGroups ? { droppedGroups: run.droppedGroups } : {}),
    trainTasks: run.trainTasks,
    testTasks: run.testTasks,
    durationMs: run.durationMs,
  };
}
