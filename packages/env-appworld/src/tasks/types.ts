import type { PlanNode, Task } from '@harness-s/core';
import type { Database } from 'better-sqlite3';
import type { TaskCheck } from '../evaluation/check-context.js';

/** The person a task is done for, as AppWorld's `/initialize` shows them. */
export interface Supervisor {
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
}

/** An AppWorld task: the embedded world's, or one of the real server's. */
export interface AppWorldTask extends Task {
  env: 'appworld';
  /** The scenario's 7-hex id; the task id is `{scenarioId}_{variant}`. */
  scenarioId: string;
  variant: number;
  supervisor: Supervisor;
  /** The frozen time of the task. */
  datetime: string;
  /** The language of code actions: JavaScript for the embedded world, Python for the real AppWorld. */
  codeLanguage: 'javascript' | 'python';
}

/** The splits tasks come in. */
export const appworldSplits = ['train', 'dev', 'test'] as const;
export type AppWorldSplit = (typeof appworldSplits)[number];

/** One variant of a scenario, as a scenario builds it from the base world. */
export interface VariantSpec {
  supervisorId: number;
  /** The task text (without the supervisor line, which is added for every task). */
  instruction: string;
  /** Changes to the base world that make this task's initial state. */
  setup?: (db: Database) => void;
  /** The oracle plan, with decision points. */
  plan: PlanNode[];
  /** The state-based checks. */
  check: TaskCheck;
}

/** A scenario: one kind of task in three variants (different people, values and data). */
export interface Scenario {
  /** Stable name; the scenario id is derived from it. */
  name: string;
  /** The app family it belongs to (its tasks' category). */
  family: string;
  split: AppWorldSplit;
  difficulty: 1 | 2 | 3;
  /** Kinds of task, e.g. `intersection`, `account-recovery`, `pagination`. */
  tags: string[];
  variants(world: Database): VariantSpec[];
}

/** A task of the embedded world with everything needed to run and score it. */
export interface EmbeddedTask {
  task: AppWorldTask;
  spec: VariantSpec;
}
