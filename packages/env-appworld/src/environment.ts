import { readFile } from 'node:fs/promises';
import {
  ConfigError,
  deriveSeed,
  type Environment,
  InputError,
  type OpenOptions,
  type OraclePlan,
  type TaskSet,
  type TaskSource,
  type Trajectory,
  type UnloadableTask,
  withHardness,
} from '@harness-s/core';
import { apiNames } from './apps/index.js';
import { AppWorldEpisode } from './episode.js';
import { goalCompletion, goalCompletionLines } from './goal-completion.js';
import { CodeSandbox, checkSandboxLimits, type SandboxLimits } from './sandbox/code-sandbox.js';
import type { SandboxWorkerPool } from './sandbox/worker-pool.js';
import { appworldHardness } from './task-hardness.js';
import { act, appworldSkills } from './tasks/plan-steps.js';
import { type AppWorldTask, appworldSplits } from './tasks/types.js';
import { defaultWorldSeed, EmbeddedWorld } from './world/embedded-world.js';
import { WorldSession } from './world/session.js';

export interface AppWorldEnvironmentOptions {
  /** Seed of the generated world (default 100). */
  seed?: number;
  /** Sandbox limits per code block; refused as the environment is made when they could end the process (`checkSandboxLimits`). */
  limits?: Partial<SandboxLimits>;
  /** Bytes an episode's API calls may add to its world's database (`defaultMaxStoredBytes`, 16 MB). */
  maxStoredBytes?: number;
  /** Sandbox worker threads; the process-wide pool by default. */
  pool?: SandboxWorkerPool;
}

/** The embedded AppWorld environment, with the world and the episode factory exposed for the server. */
export interface AppWorldEnvironment extends Environment<AppWorldTask> {
  readonly world: EmbeddedWorld;
  open(task: AppWorldTask, options?: OpenOptions): Promise<AppWorldEpisode>;
}

/** Reads a task id list (AppWorld's datasets/*.txt format: one id per line). */
async function readTaskIds(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read task id file ${file}: ${String(error)}`, {
      code: 'unreadable-file',
      cause: error,
    });
  }
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}

/** The plan that ends the task at once having done nothing. */
export function appworldEmptyPlan(task: AppWorldTask): OraclePlan {
  const code =
    task.codeLanguage === 'python' ? 'apis.supervisor.complete_task()' : 'apis.supervisor.complete_task({});';
  return { taskId: task.id, nodes: [act(code, 'I will complete the task now.')] };
}

/**
 * AppWorld on the embedded world: apps, people and tasks of this project's own design in
 * AppWorld's shapes, JavaScript code actions in a QuickJS sandbox, state-based checks.
 */
export function createAppWorldEnvironment(options: AppWorldEnvironmentOptions = {}): AppWorldEnvironment {
  if (options.limits) checkSandboxLimits(options.limits);
  const world = EmbeddedWorld.forSeed(options.seed ?? defaultWorldSeed);
  const names = apiNames();
  const embedded = (task: AppWorldTask) => {
    const found = world.task(task.id);
    if (!found)
      throw new ConfigError(`task ${task.id} is not a task of the embedded AppWorld world`, { code: 'unknown-task' });
    return found;
  };
  return {
    id: 'appworld',
    splits: [...appworldSplits],
    skills: appworldSkills,
    world,

    async loadTasks(source: TaskSource): Promise<TaskSet<AppWorldTask>> {
      if (source.file) {
        const unloadable: UnloadableTask[] = [];
        const tasks: AppWorldTask[] = [];
        for (const id of await readTaskIds(source.file)) {
          const found = world.task(id);
          if (found) tasks.push(found.task);
          else unloadable.push({ id, reason: 'no such task in the embedded world' });
        }
        return { tasks, unloadable };
      }
      const split = source.split ?? 'dev';
      if (!(appworldSplits as readonly string[]).includes(split)) {
        throw new ConfigError(
          `appworld has no split '${split}'; shipped: ${appworldSplits.join(', ')} (or a task file of task ids)`,
          {
            code: 'unknown-split',
          },
        );
      }
      return {
        tasks: world.tasks.filter((item) => item.task.split === split).map((item) => item.task),
        unloadable: [],
      };
    },

    async open(task: AppWorldTask, openOptions?: OpenOptions): Promise<AppWorldEpisode> {
      openOptions?.signal?.throwIfAborted();
      const item = embedded(task);
      const initial = world.initialState(task.id);
      const db = world.openState(task.id);
      const session = new WorldSession(
        db,
        { supervisorId: item.spec.supervisorId, now: task.datetime, seed: deriveSeed('appworld', task.id) },
        options.maxStoredBytes,
      );
      try {
        const sandbox = await CodeSandbox.create({
          callApi: (app, api, args) => session.call(app, api, args),
          apiNames: names,
          now: task.datetime,
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.pool ? { pool: options.pool } : {}),
        });
        return new AppWorldEpisode(item, initial, db, session, sandbox, () => world.openState(task.id));
      } catch (error) {
        db.close();
        throw error;
      }
    },

    oraclePlan(task: AppWorldTask): OraclePlan {
      return withHardness({ taskId: task.id, nodes: embedded(task).spec.plan }, appworldHardness(task));
    },

    emptyPlan: appworldEmptyPlan,

    extendSummary(trajectories: readonly Trajectory[], tasks: readonly AppWorldTask[]) {
      return { appworld: goalCompletion(trajectories, tasks) };
    },

    summaryLines: goalCompletionLines,

    async close(): Promise<void> {
      await options.pool?.close();
    },
  };
}
