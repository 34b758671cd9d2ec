import type { Policy } from '../policy.js';
import type { Trajectory } from '../trajectory.js';

/** How a rescued trajectory is presented to the trainer. */
export type RescueContext = 'variant' | 'h0';

/** One trajectory of a retained group with its advantage. */
export interface ScoredTrajectory {
  trajectory: Trajectory;
  advantage: number;
  /**
   * `variant`: train on the trajectory as rendered under the harness that produced it; `h0`: its
   * actions re-rendered under H0's prompt and codec (possible because variants are protocol-compliant).
   */
  context: RescueContext;
}

/** A retained group after rescue, ready for the update. */
export interface ScoredGroup {
  groupId: string;
  taskId: string;
  trajectories: ScoredTrajectory[];
}

/** What an update did, for the metrics. */
export interface TrainerUpdate {
  /** The policy after the update (a new version). */
  policy: Policy;
  /** Trainer-specific numbers (gradient norms, parameter values...). */
  stats: Record<string, number>;
}

/**
 * Updates a policy from scored groups. The embedded trainer updates the simulated policy; trainers
 * for real models export batches or drive GPU trainers.
 */
export interface Trainer {
  readonly id: string;
  /** The current policy. */
  readonly policy: Policy;
  update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate>;
  /** Everything needed to continue exactly from here (parameters, optimiser state). */
  state(): unknown;
  restore(state: unknown): void;
}
