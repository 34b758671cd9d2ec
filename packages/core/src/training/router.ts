import type { AttemptRunner } from '../attempt-runner.js';
import type { Environment } from '../environment.js';
import type { Harness } from '../harness.js';
import type { HarnessSpec } from '../harness-spec.js';
import type { Policy } from '../policy.js';
import type { Random } from '../random.js';
import type { Task } from '../task.js';
import type { Trajectory } from '../trajectory.js';

/** What a router is asked when a group under H0 failed entirely. */
export interface RescueRequest<T extends Task = Task> {
  task: T;
  /** The sibling pool (H0 excluded). */
  pool: readonly HarnessSpec[];
  /** How many distinct variants to return. */
  count: number;
  /** The training step, for routers that change over time. */
  step: number;
  /** Seeded randomness for this request, so runs repeat. */
  random: Random;
  /**
   * The task's failed attempts under H0 (the group rescue replaces), for routers that read how the
   * policy failed. The training loop always gives them; callers of a router may leave them out.
   */
  failures?: readonly Trajectory[];
}

/** How one harness did in a rescue group. */
export interface HarnessOutcome {
  harnessId: string;
  attempts: number;
  successes: number;
}

/** Scored attempts and successes per harness, in order of first appearance. */
export function outcomesByHarness(trajectories: readonly Trajectory[]): HarnessOutcome[] {
  const byHarness = new Map<string, HarnessOutcome>();
  for (const trajectory of trajectories) {
    const outcome = byHarness.get(trajectory.harnessId) ?? {
      harnessId: trajectory.harnessId,
      attempts: 0,
      successes: 0,
    };
    byHarness.set(trajectory.harnessId, outcome);
    outcome.attempts += 1;
    if (trajectory.evaluation?.success) outcome.successes += 1;
  }
  return [...byHarness.values()];
}

/** What one rescue met: the task, the step, and per variant its scored attempts and successes. */
export interface RescueReport<T extends Task = Task> {
  task: T;
  step: number;
  outcomes: HarnessOutcome[];
}

/** The training loop's view of the policy and data, for routers that re-anchor their evidence. */
export interface RouterStepContext<T extends Task = Task> {
  step: number;
  policy: Policy;
  environment: Environment<T>;
  validationTasks: readonly T[];
  h0: Harness;
  pool: readonly Harness[];
  seed: number;
  concurrency: number;
  /** Where the run's attempts run (its workers, with `train --redis`); in this process when absent. */
  runner?: AttemptRunner;
  /** The run's interrupt: profiling stops with it. */
  signal?: AbortSignal;
}

/**
 * Chooses the rescue set: distinct variants from the pool for a task whose H0 group failed.
 * The adaptive router (profiles, rankers, voting, re-anchoring) implements this in the router
 * package; `RandomRouter` is the simple baseline.
 */
export interface RescueRouter<T extends Task = Task> {
  readonly id: string;
  /**
   * Distinct harness ids from the pool, at most `count`. Fewer take the missing places in turn (a
   * rescue group always has the shape's attempts); none leaves the group unrescued: it trains as
   * under plain GRPO, and the step's metrics count it in `rescueTriggered` but not in `rescued`.
   */
  select(request: RescueRequest<T>): Promise<string[]>;
  /**
   * Whether a run of `steps` steps has the router run on the validation tasks (anchoring
   * profiles): `train` then refuses a harness-s run without them before any attempt.
   */
  needsValidationTasks?(steps: number): boolean;
  /**
   * What a run without validation tasks could do instead, added to `train`'s refusal when
   * `needsValidationTasks` says they are needed (for example, starting from stored profiles).
   */
  readonly withoutValidationTasks?: string;
  /**
   * Called before each training step; a router may re-anchor its profiles here. Resolving `true`
   * says it changed its state: the loop checkpoints that at once, so a run killed later in the step
   * resumes without the work, and the router, restored, must not redo it for the same step.
   */
  beforeStep?(context: RouterStepContext<T>): Promise<unknown>;
  /**
   * Told what each rescue gave, in batch order, before the step's checkpoint (so what a router
   * learns from it is in its `state`): evidence on the policy as it is now.
   */
  observe?(report: RescueReport<T>): void;
  /** Serializable state for checkpoints. */
  state(): unknown;
  restore(state: unknown): void;
}

/** Distinct variants drawn uniformly at random: the rescue baseline without routing. */
export class RandomRouter implements RescueRouter {
  readonly id = 'random';

  async select(request: RescueRequest): Promise<string[]> {
    const ids = request.pool.map((spec) => spec.id);
    // Partial Fisher-Yates: the first `count` entries become a uniform sample without replacement.
    for (let i = 0; i < Math.min(request.count, ids.length); i += 1) {
      const j = i + request.random.int(ids.length - i);
      [ids[i], ids[j]] = [ids[j] as string, ids[i] as string];
    }
    return ids.slice(0, request.count);
  }

  state(): unknown {
    return null;
  }

  restore(): void {}
}
