import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Harness } from '../harness.js';
import type { Policy } from '../policy.js';
import { writeFileAtomic } from '../run-store.js';
import type { Task } from '../task.js';
import { type TrainingExample, trainingExample } from './examples.js';
import { rerenderTrajectory } from './rerender.js';
import type { ScoredGroup, Trainer, TrainerUpdate } from './trainer.js';

/** Where a run's step batches go, relative to its folder. */
export const batchFile = (step: number): string => join('batches', `step-${step}.jsonl`);

export interface BatchExportTrainerOptions {
  /** The policy that acts: a model served elsewhere, which this process does not update. */
  policy: Policy;
  /** The run folder; each step's batch goes to `batches/step-N.jsonl` in it. */
  dir: string;
  h0: Harness;
  /** The tasks trained on, by id (to re-render rescued attempts under H0). */
  tasks: readonly Task[];
  /**
   * Called with each step's batch once it is written, before the next step starts: where an
   * external trainer takes the batch and updates the served model. A rejection stops the run,
   * which then resumes from its last checkpoint (the step's batch is written again).
   */
  onBatch?: (batch: { path: string; step: number; examples: number }) => Promise<void>;
}

/**
 * The trainer for a model this process cannot update: each step's retained groups, with their
 * advantages, become a JSONL batch (`TrainingExample` lines, rescued attempts re-rendered under H0
 * when the run says so) for an external trainer, and `onBatch` hands it over. The policy is the one
 * the endpoint serves at each step; its parameters are not this trainer's, so its state is empty.
 */
export class BatchExportTrainer implements Trainer {
  readonly id = 'batch-export';
  private readonly tasks: Map<string, Task>;

  constructor(private readonly options: BatchExportTrainerOptions) {
    this.tasks = new Map(options.tasks.map((task) => [task.id, task]));
  }

  get policy(): Policy {
    return this.options.policy;
  }

  async update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate> {
    const examples: TrainingExample[] = groups.flatMap((group) =>
      group.trajectories.map(({ trajectory, advantage, context }) => {
        const task = this.tasks.get(trajectory.taskId);
        const messages =
          context === 'h0' && task ? rerenderTrajectory(trajectory, task, this.options.h0) : trajectory.messages;
        return trainingExample(trajectory, {
          groupId: group.groupId,
          step,
          context: context === 'h0' && task ? 'h0' : 'variant',
          messages,
          advantage,
        });
      }),
    );
    const path = join(this.options.dir, batchFile(step));
    await mkdir(join(this.options.dir, 'batches'), { recursive: true });
    await writeFileAtomic(path, examples.map((example) => `${JSON.stringify(example)}\n`).join(''));
    await this.options.onBatch?.({ path, step, examples: examples.length });
    return { policy: this.policy, stats: { groups: groups.length, examples: examples.length } };
  }

  state(): unknown {
    return {};
  }

  restore(): void {}
}
