import { existsSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  ConfigError,
  readJson,
  readTrajectories,
  rerenderTrajectory,
  type TrainingExample,
  trainingExample,
} from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import { createEnvironment } from '../environments.js';
import { loadSplitOrFile, recordedSplit } from '../task-splits.js';

export type { TrainingExample };

export interface ExportFlags {
  run: string;
  out?: string;
  context?: 'variant' | 'h0';
  all?: boolean;
  /** AppWorld servers to read the run's tasks from (default: the ones the run used). */
  appworldUrl?: string[];
}

/**
 * `harness-s export RUN_DIR`: the retained attempts of a training run as JSONL batches for
 * external trainers (group id, harness id, messages, token ids where known, advantage, reward).
 */
export async function runExport(flags: ExportFlags): Promise<{ path: string; examples: number }> {
  const dir = resolve(flags.run);
  if (!existsSync(dir)) throw new ConfigError(`export: no such folder ${dir}`, { code: 'missing-run' });
  if (!existsSync(join(dir, 'config.json')))
    throw new ConfigError(`${dir} is not a training run (it has no config.json)`, { code: 'not-a-train-run' });
  const config = (await readJson(join(dir, 'config.json'))) as {
    command?: string;
    env?: string;
    /** The id of the run's base harness (a built-in name). */
    h0?: string;
    flags?: { appworldUrl?: string[] };
    config?: { method?: string; rescueContext?: 'variant' | 'h0' };
    split?: unknown;
    splits?: unknown;
  };
  if (config.command !== 'train' || !config.env) {
    throw new ConfigError(`${dir} is not a training run (config.json has no command 'train')`, {
      code: 'not-a-train-run',
    });
  }
  const trajectories = (await readTrajectories(dir)).filter(
    (trajectory) => trajectory.training && (flags.all || trajectory.training.retained) && trajectory.evaluation,
  );
  // By default what the run trained on: rescued attempts in its rescue context; a mixture's as rendered.
  const context =
    flags.context ?? (config.config?.method === 'mixture' ? 'variant' : (config.config?.rescueContext ?? 'variant'));
  // The tasks come from where the run read them: AppWorld's server, when it trained on one.
  const appworldUrl = flags.appworldUrl ?? config.flags?.appworldUrl;
  const environment = createEnvironment(config.env, appworldUrl?.length ? { appworldUrl } : {});
  const path = resolve(flags.out ?? join(dir, `batches-${context}.jsonl`));
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'w');
  try {
    const h0 = await resolveHarness(config.env, config.h0 ?? 'h0');
    const tasks = new Map<string, Awaited<ReturnType<typeof environment.loadTasks>>['tasks'][number]>();
    // A run cut from a task file reads it (its own copy); its tasks are named after the file, not a split.
    const cutFrom = recordedSplit(dir, config);
    if (cutFrom) for (const task of (await loadSplitOrFile(environment, cutFrom)).tasks) tasks.set(task.id, task);
    const splits = new Set(
      trajectories.filter((trajectory) => !tasks.has(trajectory.taskId)).map((trajectory) => trajectory.split),
    );
    for (const split of splits)
      for (const task of (await loadSplitOrFile(environment, split)).tasks) tasks.set(task.id, task);
    for (const trajectory of trajectories) {
      const task = tasks.get(trajectory.taskId);
      if (!task)
        throw new ConfigError(
          `task ${trajectory.taskId} of ${trajectory.id} is no longer in split ${trajectory.split}`,
          { code: 'missing-task' },
        );
      const example: TrainingExample = trainingExample(trajectory, {
        groupId: trajectory.training?.groupId ?? '',
        step: trajectory.training?.step ?? 0,
        context,
        messages: context === 'h0' ? rerenderTrajectory(trajectory, task, h0) : trajectory.messages,
        advantage: trajectory.training?.advantage ?? 0,
      });
      await handle.write(`${JSON.stringify(example)}\n`);
    }
  } finally {
    await handle.close();
    await environment.close();
  }
  process.stdout.write(`Wrote ${trajectories.length} examples to ${path}\n`);
  return { path, examples: trajectories.length };
}
