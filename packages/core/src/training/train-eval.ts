import { join } from 'node:path';
import { everyAttemptLost } from '../attempt-runner.js';
import type { Environment } from '../environment.js';
import { evaluate } from '../evaluate.js';
import type { Harness } from '../harness.js';
import { deriveSeed } from '../random.js';
import { writeLinesAtomic } from '../run-store.js';
import type { Task } from '../task.js';
import type { TrainConfig } from './train-config.js';
import type { TrainOptions } from './train-options.js';
import { type EvalPoint, evalTrajectoriesFile } from './train-store.js';
import type { Trainer } from './trainer.js';

/** Whether the run evaluates under H0 after `step`: every `evalEvery` steps, and after the last. */
export const evalDueAfter = (config: Pick<TrainConfig, 'steps' | 'evalEvery'>, step: number): boolean =>
  step > 0 && ((config.evalEvery !== undefined && step % config.evalEvery === 0) || step === config.steps);

/**
 * The run's evaluation under H0 on the test split: the policy as it stands, K attempts per task,
 * seeded by (seed, step) so that an evaluation run again after a stop gives the same point.
 */
export function h0Evaluator<T extends Task>(
  options: TrainOptions<T>,
  config: TrainConfig,
  environment: Environment<T>,
  h0: Harness,
  trainer: Trainer,
): (step: number, catchUp?: boolean) => Promise<EvalPoint> {
  return async (step, catchUp) => {
    const progress = { step, steps: config.steps, phase: 'eval', ...(catchUp ? { catchUp } : {}) } as const;
    options.onProgress?.(progress);
    const planned = options.tasks.test.length * config.evalK;
    options.onProgress?.({ ...progress, attempts: { done: 0, total: planned } });
    const { summary, trajectories } = await evaluate({
      environment,
      taskSet: { tasks: [...options.tasks.test], unloadable: [] },
      split: 'test',
      harness: h0,
      policy: trainer.policy,
      k: config.evalK,
      seed: deriveSeed(config.seed, 'eval', step),
      concurrency: config.concurrency,
      runId: `${options.dir}#eval-${step}`,
      ...(options.runner ? { runner: options.runner, attemptIdPrefix: `eval-${step}:` } : {}),
      maxInfraRetries: config.maxInfraRetries,
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: ({ completed, total }) => options.onProgress?.({ ...progress, attempts: { done: completed, total } }),
    });
    options.signal?.throwIfAborted(); // attempts an interrupt cut short are no outage
    const when = step === 0 ? 'before training' : `after step ${step}`;
    if (summary.unscoredTasks.length === summary.tasks)
      throw everyAttemptLost(`the evaluation under H0 ${when}`, trajectories);
    // Every attempt, for what a Pass@k leaves out: which tasks the policy solves after this step.
    await writeLinesAtomic(
      join(options.dir, evalTrajectoriesFile(step)),
      trajectories.map((trajectory) => JSON.stringify(trajectory)),
    );
    const point = { step, passAtK: summary.passAtK, avgAtK: summary.avgAtK, k: config.evalK };
    options.onProgress?.({ ...progress, eval: point });
    return point;
  };
}
