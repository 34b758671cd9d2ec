import type { AttemptRunner } from '../attempt-runner.js';
import type { Environment } from '../environment.js';
import { ConfigError } from '../errors.js';
import { type Harness, isHarness } from '../harness.js';
import type { Task } from '../task.js';
import type { RescueRouter } from './router.js';
import type { StepMetrics } from './step-metrics.js';
import type { TrainConfigInput } from './train-config.js';
import type { EvalPoint } from './train-store.js';
import type { Trainer, TrainerUpdate } from './trainer.js';

/** Progress of a training run. */
export interface TrainProgress {
  step: number;
  steps: number;
  phase: 'base' | 'rescue' | 'update' | 'eval' | 'done';
  metrics?: StepMetrics;
  eval?: EvalPoint;
  /**
   * Of a phase that runs attempts (base, rescue, eval): how many have ended, of how many; said
   * with 0 ended as the phase starts, then after each attempt.
   */
  attempts?: { done: number; total: number };
  /** Of the rescue phase as it starts: how many groups failed every attempt, and are rescued. */
  failedGroups?: number;
  /**
   * Of the update phase: attempts of the groups it trains on (base groups kept, rescue groups)
   * lost to infrastructure errors after their retries, of how many, and in how many groups. They
   * are left out of the groups handed to the trainer, so those groups are short of attempts.
   */
  lost?: { attempts: number; of: number; groups: number };
  /**
   * Of the eval and done phases of a step recorded before the run was stopped during its
   * evaluation: that evaluation, run on resume, then the step's whole line (its 'done', which the
   * stop came before). A caller counting steps has counted it already, as the checkpoint's.
   */
  catchUp?: boolean;
}

export interface TrainOptions<T extends Task> {
  config: TrainConfigInput;
  environment: Environment<T>;
  tasks: { train: readonly T[]; test: readonly T[]; validation?: readonly T[] };
  h0: Harness;
  /** The sibling pool (frozen during training); needed by `harness-s` and `mixture`. */
  pool?: readonly Harness[];
  router?: RescueRouter<T>;
  trainer: Trainer<T>;
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
  const trainer = options.trainer as unknown as Partial<Record<string, unknown>> | undefined;
  const lacking = (of: Partial<Record<string, unknown>> | undefined, methods: readonly string[]) =>
    methods.filter((name) => typeof of?.[name] !== 'function');
  const trainerLacks = lacking(trainer, ['update', 'state', 'restore']);
  if (!trainer?.['policy'] || trainerLacks.length > 0)
    throw new ConfigError(
      `trainer must be a Trainer: a policy, update(groups, step), state() and restore(state)${trainer?.['policy'] ? '' : '; it has no policy'}${trainerLacks.length > 0 ? `; it lacks ${trainerLacks.join(', ')}` : ''}`,
      { code: 'bad-train-options' },
    );
  if (options.router !== undefined) {
    const routerLacks = lacking(options.router as unknown as Partial<Record<string, unknown>>, [
      'select',
      'state',
      'restore',
    ]);
    if (routerLacks.length > 0)
      throw new ConfigError(
        `router must be a RescueRouter: select(request), state() and restore(state); it lacks ${routerLacks.join(', ')}`,
        { code: 'bad-train-options' },
      );
  }
  if (options.tasks.train.length === 0) throw new ConfigError('no training tasks', { code: 'no-tasks' });
  if (options.tasks.test.length === 0)
    throw new ConfigError('no test tasks for the evaluation under H0', { code: 'no-tasks' });
}

/**
 * Refuses an update the run cannot go on with, naming the trainer and the step: no policy; a
 * trainer whose `policy` is not the policy its update returned (the next step acts, and a resumed
 * run restarts, with `trainer.policy`, so the two would part); stats that are not finite numbers
 * (metrics.jsonl could not hold them).
 */
export function checkUpdate(trainer: Trainer, update: TrainerUpdate | undefined, step: number): TrainerUpdate {
  const where = `trainer ${trainer.id}: update() of step ${step}`;
  if (!update?.policy)
    throw new ConfigError(`${where} returned no policy ({ policy, stats })`, { code: 'bad-trainer' });
  if (trainer.policy !== update.policy && trainer.policy.version !== update.policy.version)
    throw new ConfigError(
      `${where} returned policy version '${update.policy.version}', but the trainer's policy is still '${trainer.policy.version}': trainer.policy must be the policy the update returned (for example a getter over the updated one), as the next step acts with it`,
      { code: 'bad-trainer' },
    );
  const stats: unknown = update.stats ?? {};
  if (typeof stats !== 'object' || stats === null || Array.isArray(stats))
    throw new ConfigError(`${where} returned stats that are not an object of numbers`, { code: 'bad-trainer' });
  for (const [name, value] of Object.entries(stats))
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ConfigError(
        `${where} returned stats.${name} = ${typeof value === 'number' ? String(value) : JSON.stringify(value)}; stats must be finite numbers (leave out what has no value)`,
        { code: 'bad-trainer' },
      );
  return { ...update, stats: stats as Record<string, number> };
}
