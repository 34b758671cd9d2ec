import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  type Environment,
  exampleOfAttempt,
  isExampleAttempt,
  needsRerender,
  readJson,
  streamTrajectories,
  type Task,
  type TrainingExample,
  type Trajectory,
  writeLinesAtomic,
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
    const reproduction =
      config.command === 'reproduce'
        ? `: a reproduction, whose training runs are its folders train/ENV/VARIANT/METHOD/seed-N, e.g. ${join(dir, 'train', 'dbbench', 'main', 'harness-s', 'seed-1')}`
        : '';
    throw new ConfigError(`${dir} is not a training run (config.json has no command 'train')${reproduction}`, {
      code: 'not-a-train-run',
    });
  }
  // By default what the run trained on: rescued attempts in its rescue context; a mixture's as rendered.
  const context =
    flags.context ?? (config.config?.method === 'mixture' ? 'variant' : (config.config?.rescueContext ?? 'variant'));
  const h0 = await resolveHarness(config.env, config.h0 ?? 'h0');
  const all = flags.all ?? false;
  // Re-rendering under H0 needs the tasks: from the task file the run was cut from (its own copy),
  // then from the split an attempt names, read where the run read them (AppWorld's server, when it
  // trained on one), once the first attempt that needs them comes.
  const tasks = new Map<string, Task>();
  const loaded = new Set<string>();
  let environment: Environment | undefined;
  const taskOf = async (trajectory: Trajectory): Promise<Task | undefined> => {
    if (!tasks.has(trajectory.taskId) && !loaded.has(trajectory.split)) {
      if (!environment) {
        const appworldUrl = flags.appworldUrl ?? config.flags?.appworldUrl;
        environment = createEnvironment(config.env as string, appworldUrl?.length ? { appworldUrl } : {});
        const cutFrom = recordedSplit(dir, config);
        if (cutFrom) for (const task of (await loadSplitOrFile(environment, cutFrom)).tasks) tasks.set(task.id, task);
      }
      if (!tasks.has(trajectory.taskId)) {
        loaded.add(trajectory.split);
        // The run's own copy of a task comes first: a split's copy only adds the tasks it lacks.
        for (const task of (await loadSplitOrFile(environment, trajectory.split)).tasks)
          if (!tasks.has(task.id)) tasks.set(task.id, task);
      }
    }
    return tasks.get(trajectory.taskId);
  };
  const path = resolve(flags.out ?? join(dir, `batches-${context}.jsonl`));
  // One attempt at a time, from the run's file to the batch file: a run of any size fits in memory.
  const options = { h0, context, all };
  // A torn last line is an attempt a writer had not finished: normal while a run writes or after a
  // kill (`train --resume` rewrites it), but in a run that ended it means the file was damaged since.
  const ended = existsSync(join(dir, 'summary.json'));
  const onTornTail = (file: string, line: number) => {
    if (ended)
      throw new ConfigError(
        `${file}:${line}: the last line is cut short, though the run ended (it has summary.json): the file was damaged after the run, and an attempt it trained on would be left out`,
        { code: 'damaged-run' },
      );
    process.stderr.write(
      `export: left out ${file}:${line}, cut short: an attempt still being written, or one a killed run left (its resume rewrites it)\n`,
    );
  };
  async function* lines(): AsyncGenerator<string> {
    for await (const trajectory of streamTrajectories(dir, { onTornTail })) {
      if (!isExampleAttempt(trajectory, all)) continue;
      const task = needsRerender(trajectory, options) ? await taskOf(trajectory) : undefined;
      const example = exampleOfAttempt(trajectory, { ...options, task });
      if (example) yield JSON.stringify(example);
    }
  }
  let examples: number;
  try {
    examples = await writeLinesAtomic(path, lines());
  } finally {
    await environment?.close();
  }
  process.stdout.write(`Wrote ${examples} examples to ${path}\n`);
  return { path, examples };
}
