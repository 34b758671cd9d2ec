import type { AttemptRunner } from '../attempt-runner.js';
import type { Environment } from '../environment.js';
import { ConfigError } from '../errors.js';
import { type Harness, isHarness } from '../harness.js';
import type { Task } from '../task.js';
import type { RescueRouter } from './router.js';
import type { StepMetrics } from './step-metrics.js';
import type { TrainConfigInput } from './train-config.js';
import type { EvalPoint } from './train-store.js';
import type { Trainer } from './trainer.js';

/** Progress of a training run. */
export interface TrainProgress {
  step: number;
  steps: number;
  phase: 'base' | 'rescue' | 'update' | 'eval' | 'done';
  metrics?: StepMetrics;
  eval?: EvalPoint;
  /** Of a phase that runs attempts (base, rescue, eval): how many have ended, of how many. */
  attempts?: { done: number; total: number };
}

export interface TrainOptions<T extends Task> {
  config: TrainConfigInput;
  environment: Environment<T>;
  tasks: { train: readonly T[]; test: readonly T[]; validation?: readonly T[] };
  h0: Harness;
  /** The sibling pool (frozen during training); needed by `harness-s` and `mixture`. */
  pool?: readonly Harness[];
  router?: RescueRouter;
  trainer: Trainer;
  /** The run folder. */
  dir: string;
  /** Continue from the folder's last checkpoint. */
  resume?: boolean;
  /** Where attempts run, evaluations and profiling included (default: in process, at the config's concurrency). */
  runner?: AttemptRunner;
  /** Extra fields recorded in config.json (e.g. the command line). */
  record?: Record<string, unknown>;
  onProgress?: (progress: TrainProgress) => void;
  signal?: AbortSignal;
}

/** What a caller from JavaScript can pass wrong, refused by name before any attempt. */
export function checkTrainOptions<T extends Task>(options: TrainOptions<T>, pool: readonly Harness[]): void {
  const notHarness = [options.h0, ...pool].findIndex((harness) => !isHarness(harness));
  if (notHarness >= 0)
    throw new ConfigError(
      `${notHarness === 0 ? 'h0' : `pool[${notHarness - 1}]`} must be a Harness: createHarness(spec) of a harness spec (loadPool returns specs)`,
      { code: 'bad-train-options' },
    );
  if (!options.trainer?.policy || typeof options.trainer.update !== 'function')
    throw new ConfigError('trainer must be a Trainer: a policy, update(groups, step), state() and restore(state)', {
      code: 'bad-train-options',
    });
  if (options.tasks.train.length === 0) throw new ConfigError('no training tasks', { code: 'no-tasks' });
  if (options.tasks.test.length === 0)
    throw new ConfigError('no test tasks for the evaluation under H0', { code: 'no-tasks' });
}
