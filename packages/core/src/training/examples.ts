import type { Message } from '../message.js';
import type { Trajectory } from '../trajectory.js';
import type { RescueContext } from './trainer.js';

/** One training example for an external trainer: a line of `harness-s export` and of a run's `batches/`. */
export interface TrainingExample {
  groupId: string;
  step: number;
  taskId: string;
  harnessId: string;
  /** Which rendering `messages` holds: as rendered under its harness, or re-rendered under H0. */
  context: RescueContext;
  messages: Message[];
  /**
   * Per assistant turn, the completion's token ids where the server returned them: the completions
   * as sampled, under the attempt's own harness, also when `messages` are re-rendered under H0.
   */
  completionTokenIds: Array<number[] | null>;
  /** Per assistant turn, its tokens' log-probabilities under the sampling policy, where returned. */
  completionLogprobs: Array<number[] | null>;
  advantage: number;
  reward: number;
}

/** The training example of one retained attempt, its messages rendered as `context` says. */
export function trainingExample(
  trajectory: Trajectory,
  example: { groupId: string; step: number; context: RescueContext; messages: Message[]; advantage: number },
): TrainingExample {
  return {
    groupId: example.groupId,
    step: example.step,
    taskId: trajectory.taskId,
    harnessId: trajectory.harnessId,
    context: example.context,
    messages: example.messages,
    completionTokenIds: trajectory.turns.map((turn) => turn.completionTokenIds ?? null),
    completionLogprobs: trajectory.turns.map((turn) => turn.completionLogprobs ?? null),
    advantage: example.advantage,
    reward: trajectory.evaluation?.reward ?? 0,
  };
}
