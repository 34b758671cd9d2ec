import type { Action, StepResult } from './action.js';
import type { Evaluation } from './evaluation.js';
import type { ToolSpec } from './message.js';
import type { OraclePlan, SkillDescription } from './plan.js';
import type { Task, TaskSet } from './task.js';
import type { Trajectory } from './trajectory.js';

/** Where tasks come from: a named split shipped with the environment, or a file. */
export interface TaskSource {
  split?: string;
  file?: string;
}

export interface OpenOptions {
  /** Cancels opening (and the episode's later work) when aborted. */
  signal?: AbortSignal;
}

/**
 * A benchmark. Opening is cheap: rollouts reopen the same task many times (K attempts under H0,
 * then up to K rescue attempts), each from the task's initial state.
 */
export interface Environment<T extends Task = Task> {
  /** e.g. `dbbench`. */
  readonly id: string;
  /** The named splits this environment ships. */
  readonly splits: readonly string[];
  /** The skills its oracle plans' decision points name. */
  readonly skills: readonly SkillDescription[];
  /** Loads tasks; records that cannot be loaded are reported, not thrown. */
  loadTasks(source: TaskSource): Promise<TaskSet<T>>;
  /** Starts an episode in the task's initial state. Throws InfrastructureError if it cannot. */
  open(task: T, options?: OpenOptions): Promise<Episode<T>>;
  /** The task's reference solution with decision points. */
  oraclePlan(task: T): OraclePlan;
  /**
   * The actions that end the episode having changed nothing (commit no answer, submit no patch,
   * complete the task at once), as SWE-bench's empty patch: running it must solve no task.
   */
  emptyPlan(task: T): OraclePlan;
  /**
   * Optional: environment-specific additions to an evaluation's `summary.json`, computed from its
   * trajectories (SWE-Gym adds SWE-bench's run report under `swebench`). Keys of the core summary
   * are never overwritten by them.
   */
  extendSummary?(trajectories: readonly Trajectory[], tasks: readonly T[]): Record<string, unknown>;
  /**
   * Optional: the lines `harness-s eval` prints under its table for what `extendSummary` added,
   * given the summary. Without it, eval names the keys it added.
   */
  summaryLines?(summary: Readonly<Record<string, unknown>>): string[];
  /** Releases engines, pools and servers. */
  close(): Promise<void>;
}

/**
 * One attempt at one task. `close()` always runs (the agent loop calls it in `finally`) and
 * releases everything the episode made.
 */
export interface Episode<T extends Task = Task> {
  readonly task: T;
  /** The actions this episode accepts, as tools with JSON-schema parameters. */
  readonly tools: readonly ToolSpec[];
  /**
   * Executes one action. A bad action (unknown tool, bad arguments, failing SQL) is an ordinary
   * observation with `error` set; only a failure of the environment itself throws, as an
   * InfrastructureError.
   */
  step(action: Action): Promise<StepResult>;
  /** Scores the episode's final state. Callable once the episode is done or stopped. */
  evaluate(): Promise<Evaluation>;
  /** Releases the episode's resources; safe to call twice. */
  close(): Promise<void>;
}
