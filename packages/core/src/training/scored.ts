import type { Harness } from '../harness.js';
import type { Message } from '../message.js';
import type { Task } from '../task.js';
import type { Trajectory } from '../trajectory.js';
import { rerenderTrajectory } from './rerender.js';
import type { RescueContext, ScoredTrajectory } from './trainer.js';

/** A retained attempt for the trainer; its messages under H0 are made when first read. */
export function scoredTrajectory(
  trajectory: Trajectory,
  advantage: number,
  context: RescueContext,
  task: Task,
  h0: Harness,
): ScoredTrajectory {
  let rendered: Message[] | undefined;
  return {
    trajectory,
    advantage,
    context,
    get messages() {
      rendered ??= context === 'h0' ? rerenderTrajectory(trajectory, task, h0) : trajectory.messages;
      return rendered;
    },
  };
}
