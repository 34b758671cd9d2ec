import { ConfigError, deriveSeed, type Environment, type Task } from '@harness-s/core';

/** Train, validation and test tasks for training and evolution. */
export interface TaskSplits<T extends Task> {
  train: T[];
  validation: T[];
  test: T[];
  /** How the splits were made, for the run's config. */
  source: string;
}

/**
 * The environment's own train/dev/test splits when it ships them; otherwise its single split cut
 * deterministically by a hash of each task id: 60% train, 20% validation, 20% test. The cut
 * depends on the ids only, so every method and seed sees the same split.
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
  const { tasks } = await environment.loadTasks({ split: name });
  const bucket = (task: T) => deriveSeed('task-split', task.id) % 10;
  return {
    train: tasks.filter((task) => bucket(task) < 6),
    validation: tasks.filter((task) => bucket(task) >= 6 && bucket(task) < 8),
    test: tasks.filter((task) => bucket(task) >= 8),
    source: `${name} cut 60/20/20 by a hash of the task id`,
  };
}
