import { statSync } from 'node:fs';
import { ConfigError, type Environment, splitTasks, type Task, type TaskSet } from '@harness-s/core';

/** Train, validation and test tasks for training and evolution. */
export interface TaskSplits<T extends Task> {
  train: T[];
  validation: T[];
  test: T[];
  /** How the splits were made, for the run's config. */
  source: string;
}

/** The cut of a single shipped split: 60% train, 20% validation, 20% test. */
export const singleSplitFractions = { train: 0.6, validation: 0.2, test: 0.2 } as const;

/** Whether `--split` names a task file (as `eval --data` takes) rather than a split. */
const isTaskFile = (split: string): boolean => statSync(split, { throwIfNoEntry: false })?.isFile() ?? false;

/** The tasks of a split the environment ships, or of a task file given in its place (a split's name wins). */
export function loadSplitOrFile<T extends Task>(environment: Environment<T>, split: string): Promise<TaskSet<T>> {
  return environment.loadTasks(!environment.splits.includes(split) && isTaskFile(split) ? { file: split } : { split });
}

/**
 * The environment's own train/dev/test splits when it ships them; otherwise its single split cut
 * deterministically by core's `splitTasks` (tasks ordered by a hash of their id, cut 60/20/20 at
 * exact sizes). The cut depends on the ids only, so every method and seed sees the same split.
 * `split` may also be a task file, cut the same way (AppWorld's real server: a file of task ids).
 */
export async function loadTaskSplits<T extends Task>(
  environment: Environment<T>,
  split?: string,
): Promise<TaskSplits<T>> {
  const splits = environment.splits;
  if (!split && splits.includes('train') && splits.includes('test')) {
    const [train, validation, test] = await Promise.all(
      ['train', splits.includes('dev') ? 'dev' : 'validation', 'test'].map(async (name) =>
        splits.includes(name) ? (await environment.loadTasks({ split: name })).tasks : [],
      ),
    );
    return {
      train: train ?? [],
      validation: validation ?? [],
      test: test ?? [],
      source: 'shipped train/dev/test splits',
    };
  }
  const name = split ?? splits[0];
  if (!name) throw new ConfigError(`environment ${environment.id} ships no split`, { code: 'no-split' });
  const { tasks } = await loadSplitOrFile(environment, name);
  return { ...splitTasks(tasks, singleSplitFractions), source: `${name} cut 60/20/20 by a hash of the task id` };
}

/** The splits `train` uses; an environment that does not ship them gets them cut from its first split. */
const trainingSplits = ['train', 'validation', 'test'] as const;

/**
 * The tasks of one split, for `eval` and `replay`: a split the environment ships, or else `train`,
 * `validation` or `test` exactly as training cuts them (`loadTaskSplits`; from `cutFrom` when the run
 * cut a split of its own), so a trained policy is evaluated on the tasks its run held out; `name`
 * then says so (`test (dev cut 60/20/20 ...)`).
 */
export async function loadSplitTasks<T extends Task>(
  environment: Environment<T>,
  split: string,
  /** The split a training run cut (its `--split`), when the tasks are that run's. */
  cutFrom?: string,
): Promise<{ taskSet: TaskSet<T>; name?: string }> {
  const cut = trainingSplits.find((name) => name === split);
  // A run that cut a split of its own held out its own test tasks, whatever the environment ships.
  if (!cut || (environment.splits.includes(split) && cutFrom === undefined))
    return { taskSet: await environment.loadTasks({ split }) };
  const splits = await loadTaskSplits(environment, cutFrom);
  return { taskSet: { tasks: splits[cut], unloadable: [] }, name: `${cut} (${splits.source})` };
}
