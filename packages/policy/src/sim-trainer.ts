import {
  ConfigError,
  type Decision,
  formatZodError,
  type RescueContext,
  type ScoredGroup,
  type Trainer,
  type TrainerUpdate,
} from '@harness-s/core';
import { z } from 'zod';
import { actionFormatSkill, hardnessClass, SimulatedPolicy, SimulatedPolicyConfig, sigmoid } from './sim-policy.js';

/** Settings of the embedded GRPO trainer. */
export const SimulatedTrainerOptions = z.strictObject({
  /** Step size on theta per update. */
  learningRate: z.number().positive().default(1),
  /**
   * Step size on hardTheta. A hardness class is a narrow behaviour that only its own instances
   * teach, so its few successes must move it further than one success moves a common skill.
   */
  hardLearningRate: z.number().positive().default(8),
  /** Theta is kept within [-clip, clip], as a real policy's probabilities never reach 0 or 1. */
  clip: z.number().positive().default(6),
});
export type SimulatedTrainerOptions = z.infer<typeof SimulatedTrainerOptions>;

/** One trajectory's part in an update: its advantage, how it is trained, and its decisions. */
export interface DecisionsToTrain {
  advantage: number;
  context: RescueContext;
  decisions: readonly Decision[];
}

const TrainerState = z.object({ config: SimulatedPolicyConfig, step: z.number().int().nonnegative() });

/**
 * GRPO for the simulated policy. Each recorded decision is a Bernoulli choice with probability
 * p = sigmoid(theta[skill] + cue + shift - max(0, hardness - hardTheta[skill@hardness])); the
 * policy-gradient of its log-probability with respect to theta[skill] is (1 - p) when the right
 * branch was taken and -p otherwise, and the same with respect to the hardTheta of the decision's
 * hardness class while its hardness is not yet learned away (0 elsewhere). The update is parameter += learningRate * mean over
 * trajectories of advantage * that gradient.
 *
 * With the `h0` rescue context a rescued trajectory is scored as if its choices had been made
 * under H0, without the variant's cue or shift (p = sigmoid(theta)), and the choices a tool transform made
 * for it count as its own: the behaviour the variant elicited is pushed into theta, where it
 * persists when the policy returns to H0.
 */
export class SimulatedGrpoTrainer implements Trainer {
  readonly id = 'sim-grpo';
  private current: SimulatedPolicy;
  readonly options: SimulatedTrainerOptions;

  constructor(policy: SimulatedPolicy, options: Partial<SimulatedTrainerOptions> = {}) {
    const parsed = SimulatedTrainerOptions.safeParse(options);
    if (!parsed.success)
      throw new ConfigError(`simulated trainer: ${formatZodError(parsed.error)}`, { code: 'bad-trainer-config' });
    this.options = parsed.data;
    this.current = policy;
  }

  get policy(): SimulatedPolicy {
    return this.current;
  }

  async update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate> {
    return this.updateFrom(
      groups.flatMap((group) =>
        group.trajectories.map(({ trajectory, advantage, context }) => ({
          advantage,
          context,
          decisions: trajectory.turns.flatMap((turn) => turn.decisions ?? []),
        })),
      ),
      step,
    );
  }

  /**
   * The same update from each trajectory's decisions, however they were obtained: recorded while
   * sampling, or recovered from a training example's messages (`SimulatedPolicy.follow`).
   */
  updateFrom(trajectories: readonly DecisionsToTrain[], step: number): TrainerUpdate {
    const gradients = new Map<string, number>();
    /** Gradients of hardTheta: only decisions whose hardness the policy has not yet learned away. */
    const hardGradients = new Map<string, number>();
    for (const { advantage, context, decisions } of trajectories) {
      if (advantage === 0) continue;
      for (const decision of decisions) {
        // The harness made this choice: as rendered there is nothing of the policy's to learn;
        // re-rendered under H0 the trajectory shows the policy taking the right branch itself.
        if (decision.byHarness && context !== 'h0') continue;
        const hardness = decision.hardness ?? 0;
        // Re-rendered under H0 the choice had no cue, only the task's own hardness.
        const probability =
          context === 'h0' ? sigmoid(this.current.logit(decision.skill, hardness)) : decision.probability;
        const gradient = advantage * (decision.right ? 1 - probability : -probability);
        gradients.set(decision.skill, (gradients.get(decision.skill) ?? 0) + gradient);
        if (decision.skill !== actionFormatSkill && this.current.remainingHardness(decision.skill, hardness) > 0) {
          const key = hardnessClass(decision.skill, hardness);
          hardGradients.set(key, (hardGradients.get(key) ?? 0) + gradient);
        }
      }
    }
    const count = trajectories.length;
    const { learningRate, clip } = this.options;
    const config = this.current.config;
    const theta = { ...config.theta };
    let actionFormatTheta = config.actionFormatTheta;
    let norm = 0;
    for (const [skill, sum] of gradients) {
      const delta = (learningRate * sum) / Math.max(1, count);
      norm += delta * delta;
      const clamp = (value: number) => Math.max(-clip, Math.min(clip, value));
      if (skill === actionFormatSkill) actionFormatTheta = clamp(actionFormatTheta + delta);
      else theta[skill] = clamp((theta[skill] ?? config.defaultTheta) + delta);
    }
    const hardTheta = { ...config.hardTheta };
    for (const [skill, sum] of hardGradients) {
      const delta = (this.options.hardLearningRate * sum) / Math.max(1, count);
      norm += delta * delta;
      hardTheta[skill] = Math.max(0, Math.min(clip, (hardTheta[skill] ?? 0) + delta));
    }
    this.current = new SimulatedPolicy({ ...config, theta, actionFormatTheta, hardTheta }, step);
    // The parameters this update moved, so a run's metrics name its own environment's skills only
    // (the settings hold every shipped environment's).
    const stats: Record<string, number> = { updateNorm: Math.sqrt(norm), trajectories: count };
    for (const skill of gradients.keys()) {
      stats[skill === actionFormatSkill ? 'actionFormatTheta' : `theta.${skill}`] =
        skill === actionFormatSkill ? actionFormatTheta : (theta[skill] ?? config.defaultTheta);
    }
    for (const skill of hardGradients.keys()) stats[`hardTheta.${skill}`] = hardTheta[skill] ?? 0;
    return { policy: this.current, stats };
  }

  state(): unknown {
    return { config: this.current.config, step: this.current.step };
  }

  restore(state: unknown): void {
    const parsed = TrainerState.safeParse(state);
    if (!parsed.success)
      throw new ConfigError(`checkpoint trainer state: ${formatZodError(parsed.error)}`, { code: 'bad-checkpoint' });
    this.current = new SimulatedPolicy(parsed.data.config, parsed.data.step);
  }
}
