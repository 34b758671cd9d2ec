import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Policy } from '../policy.js';
import { writeFileAtomic } from '../run-store.js';
import { type TrainingExample, trainingExample } from './examples.js';
import type { ScoredGroup, Trainer, TrainerRun, TrainerUpdate } from './trainer.js';

/** Where a run's step batches go, relative to its folder. */
export const batchFile = (step: number): string => join('batches', `step-${step}.jsonl`);

export interface BatchExportTrainerOptions {
  /** The policy that acts: a model served elsewhere, which this process does not update. */
  policy: Policy;
  /**
   * The run folder; each step's batch goes to `batches/step-N.jsonl` in it. Default: the folder
   * of the run `train` uses the trainer in; another folder than that run's is refused.
   */
  dir?: string;
  /**
   * Called with each step's batch once it is written, before the next step starts: where an
   * external trainer takes the batch and updates the served model. A rejection stops the run,
   * which then resumes from its last checkpoint (the step's batch is written again). Every step is
   * handed over, one whose groups were all dropped (`zeroVariance: 'drop'`) as an empty batch, so
   * that the served model's updates follow the run's steps one by one.
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
  private dir: string | undefined;
  /** The run's base harness id, told by `attach`. */
  private h0: string | undefined;

  constructor(private readonly options: BatchExportTrainerOptions) {
    this.dir = options.dir;
  }

  get policy(): Policy {
    return this.options.policy;
  }

  attach(run: TrainerRun): void {
    const given = this.options.dir;
    if (given !== undefined && resolve(given) !== resolve(run.dir))
      throw new ConfigError(
        `BatchExportTrainer writes to ${given}, but the run's folder is ${run.dir}: leave its dir out, or give the run's`,
        { code: 'bad-train-options' },
      );
    this.dir = run.dir;
    this.h0 = run.h0.spec.id;
  }

  async update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate> {
    const dir = this.dir;
    if (dir === undefined)
      throw new ConfigError(
        'BatchExportTrainer has no folder: give it dir, or use it in train(), which gives its own',
        {
          code: 'bad-train-options',
        },
      );
    const examples: TrainingExample[] = groups.flatMap((group) =>
      group.trajectories.map((scored) =>
        trainingExample(scored.trajectory, {
          groupId: group.groupId,
          step,
          context: scored.context,
          h0Id: this.h0,
          messages: scored.messages,
          advantage: scored.advantage,
        }),
      ),
    );
    const path = join(dir, batchFile(step));
    await mkdir(join(dir, 'batches'), { recursive: true });
    await writeFileAtomic(path, examples.map((example) => `${JSON.stringify(example)}\n`).join(''));
    await this.options.onBatch?.({ path, step, examples: examples.length });
    return { policy: this.policy, stats: { groups: groups.length, examples: examples.length } };
  }

  state(): unknown {
    return {};
  }

  restore(): void {}
}
