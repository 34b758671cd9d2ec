import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  ConfigError,
  readJson,
  readTrajectories,
  type Task,
  type TrainingExample,
  trainingExamples,
  writeFileAtomic,
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
  // By default what the run trained on: rescued attempts in its rescue context; a mixture's as rendered.
  const context =
    flags.context ?? (config.config?.method === 'mixture' ? 'variant' : (config.config?.rescueContext ?? 'variant'));
  const h0 = await resolveHarness(config.env, config.h0 ?? 'h0');
  const trajectories = await readTrajectories(dir);
  // Re-rendering under H0 needs the tasks: from the task file the run was cut from (its own copy),
  // then from the splits its attempts name, read where the run read them (AppWorld's server, when
  // it trained on one).
  const tasks = new Map<string, Task>();
  // Only attempts under another harness than H0 are re-rendered.
  if (
    context === 'h0' &&
    trajectories.some((trajectory) => trajectory.training && trajectory.harnessId !== h0.spec.id)
  ) {
    const appworldUrl = flags.appworldUrl ?? config.flags?.appworldUrl;
    const environment = createEnvironment(config.env, appworldUrl?.length ? { appworldUrl } : {});
    try {
      const cutFrom = recordedSplit(dir, config);
      if (cutFrom) for (const task of (await loadSplitOrFile(environment, cutFrom)).tasks) tasks.set(task.id, task);
      const splits = new Set(
        trajectories.filter((trajectory) => !tasks.has(trajectory.taskId)).map((trajectory) => trajectory.split),
      );
      for (const split of splits)
        for (const task of (await loadSplitOrFile(environment, split)).tasks) tasks.set(task.id, task);
    } finally {
      await environment.close();
    }
  }
  const examples = trainingExamples(trajectories, { tasks: tasks.values(), h0, context, all: flags.all ?? false });
  const path = resolve(flags.out ?? join(dir, `batches-${context}.jsonl`));
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, examples.map((example) => `${JSON.stringify(example)}\n`).join(''));
  process.stdout.write(`Wrote ${examples.length} examples to ${path}\n`);
  return { path, examples: examples.length };
}
