import type { Harness } from '../harness.js';
import type { Message } from '../message.js';
import type { Policy } from '../policy.js';
import type { Task } from '../task.js';
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
  /**
   * The messages to train on, as `context` says: the trajectory's own, or its actions re-rendered
   * under H0 (made when first read).
   */
  readonly messages: Message[];
}

/** A retained group after rescue, ready for the update. */
export interface ScoredGroup<T extends Task = Task> {
  groupId: string;
  taskId: string;
  /** The task the group attempted. */
  task: T;
  trajectories: ScoredTrajectory[];
}

/** The run a trainer is used in, told to it before the first step. */
export interface TrainerRun {
  /** The run's folder. */
  dir: string;
  /** The run's base harness. */
  h0: Harness;
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
export interface Trainer<T extends Task = Task> {
  readonly id: string;
  /** The current policy. */
  readonly policy: Policy;
  update(groups: readonly ScoredGroup<T>[], step: number): Promise<TrainerUpdate>;
  /**
   * Optional: called by `train` once, before the first step (also of a resumed run), with the
   * run's folder and base harness; it may refuse a run it was not made for by throwing.
   */
  attach?(run: TrainerRun): void;
  /** Everything needed to continue exactly from here (parameters, optimiser state). */
  state(): unknown;
  restore(state: unknown): void;
}
