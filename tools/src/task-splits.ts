import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { ConfigError, type Environment, HarnessError, splitTasks, type Task, type TaskSet } from '@harness-s/core';

/** Train, validation and test tasks for training and evolution. */
export interface TaskSplits<T extends Task> {
  train: T[];
  validation: T[];
  test: T[];
  /** How the splits were made, for the run's config. */
  source: string;
  /** The task file the splits were cut from (absolute), when `--split` named one. */
  file?: string;
}

/** The cut of a single shipped split: 60% train, 20% validation, 20% test. */
export const singleSplitFractions = { train: 0.6, validation: 0.2, test: 0.2 } as const;

/** Whether `--split` names a task file (as `eval --data` takes) rather than a split. */
const isTaskFile = (split: string): boolean => statSync(split, { throwIfNoEntry: false })?.isFile() ?? false;

/** A name ending as a task file does (`ids.txt`, `tasks.jsonl`) names one, not a split. */
const looksLikeTaskFile = (name: string): boolean => /\.(jsonl|json|txt|csv|tsv)$/i.test(name);

/**
 * The task file `split` names (absolute), unless the environment ships a split of that name. A
 * name that reads as a file (a path, or ending as task files do) with nothing there is refused
 * here: the environment would call it an unknown split.
 */
function taskFileOf(environment: Pick<Environment, 'id' | 'splits'>, split: string): string | undefined {
  if (environment.splits.includes(split)) return undefined;
  if (isTaskFile(split)) return resolve(split);
  if ((looksLikeTaskFile(split) || /[/\\]/.test(split)) && !existsSync(split))
    throw new ConfigError(
      `no task file ${resolve(split)}: --split takes a split ${environment.id} ships (${environment.splits.join(', ')}) or a task file`,
      { code: 'missing-split-file' },
    );
  return undefined;
}

/**
 * Loads a split, and where the environment has no split of that name, adds to its refusal the flag
 * that reads a task file instead (`--split FILE` where splits are cut, eval's `--data FILE`).
 */
async function loadNamedSplit<T extends Task>(
  environment: Environment<T>,
  split: string,
  taskFileFlag: string,
): Promise<TaskSet<T>> {
  try {
    return await environment.loadTasks({ split });
  } catch (error) {
    // By its mark, not instanceof: a plug-in's environment may throw with its own copy of core.
    if (HarnessError.isInstance(error) && error.code === 'unknown-split')
      throw new ConfigError(`${error.message}; give a task file with ${taskFileFlag}`, { code: error.code });
    throw error;
  }
}

/**
 * Refuses a task set of which no task could be loaded (a server of another kind at the address, a
 * file of ids none of which exists), naming how many and the first reason, and one that holds no
 * task at all (an empty file); otherwise returns it.
 */
export function someLoaded<T extends Task>(taskSet: TaskSet<T>, what: string): TaskSet<T> {
  if (taskSet.tasks.length === 0 && taskSet.unloadable.length === 0)
    throw new ConfigError(`${what} holds no task`, { code: 'no-loadable-tasks' });
  const [failed] = taskSet.unloadable;
  if (taskSet.tasks.length === 0 && failed)
    throw new ConfigError(
      `none of the ${taskSet.unloadable.length} tasks of ${what} could be loaded; the first, ${failed.id}: ${failed.reason}`,
      { code: 'no-loadable-tasks' },
    );
  return taskSet;
}

/** The tasks of a split the environment ships, or of a task file given in its place (a split's name wins). */
export async function loadSplitOrFile<T extends Task>(environment: Environment<T>, split: string): Promise<TaskSet<T>> {
  const file = taskFileOf(environment, split);
  return file ? environment.loadTasks({ file }) : loadNamedSplit(environment, split, '--split FILE');
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
        splits.includes(name) ? someLoaded(await environment.loadTasks({ split: name }), `split ${name}`).tasks : [],
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
  const file = taskFileOf(environment, name);
  const { tasks } = someLoaded(
    file ? await environment.loadTasks({ file }) : await loadNamedSplit(environment, name, '--split FILE'),
    file ?? `split ${name}`,
  );
  return {
    ...splitTasks(tasks, singleSplitFractions),
    source: `${name} cut 60/20/20 by a hash of the task id`,
    ...(file ? { file } : {}),
  };
}

/** Where a training run keeps its copy of the task file it was cut from (`RUN_DIR/split/<name>`). */
const splitCopyFolder = 'split';

/**
 * Keeps, in a new run's folder, a copy of the task file its splits were cut from, so the run can be
 * evaluated, exported, studied and resumed on the same tasks after the file is moved, edited or
 * deleted. Returns what the run's config records (`split`): the file, its copy (relative to the
 * run) and the SHA-256 of its content, by which a changed copy or file is told from the run's.
 */
export async function keepSplitFile(
  runDir: string,
  splits: Pick<TaskSplits<Task>, 'file'>,
): Promise<KeptSplit | undefined> {
  if (!splits.file) return undefined;
  const copy = join(runDir, splitCopyFolder, basename(splits.file));
  await mkdir(join(runDir, splitCopyFolder), { recursive: true });
  await copyFile(splits.file, copy);
  return { file: splits.file, copy: relative(runDir, copy), sha256: sha256Of(await readFile(copy)) };
}

/** A run's record of the task file it was cut from (`config.json`'s `split`). */
export interface KeptSplit {
  file: string;
  /** The run's copy, relative to the run's folder. */
  copy: string;
  /** Of the file's content (line endings as LF) when the run started; absent in runs recorded before it was kept. */
  sha256?: string;
}

/** Of the content with its line endings as LF, so a file that only went through CRLF conversion is the same. */
const sha256Of = (content: Buffer): string =>
  createHash('sha256').update(content.toString('utf8').replace(/\r\n/g, '\n')).digest('hex');

/** What a run's `config.json` says of its `--split` (see `keepSplitFile` and `recordedSplit`). */
export interface RecordedSplit {
  /** `{ file, copy }` when the run was cut from a task file. */
  split?: unknown;
  /** How the splits were made: `<name> cut 60/20/20 ...` when the run cut a split or file of its own. */
  splits?: unknown;
}

/**
 * The `--split` a training run was cut from, as its `config.json` records it: the run's own copy
 * of a task file (`keepSplitFile`), or a split's name (read from `splits`, `<name> cut 60/20/20
 * ...`, for runs that cut one); undefined for runs on the shipped train/dev/test splits.
 */
export function recordedSplit(runDir: string, config: RecordedSplit): string | undefined {
  const kept = keptSplit(config);
  if (kept) {
    // The copy, or else the file, as long as it still holds what the run was cut from.
    const unchanged = (path: string, what: string) => {
      if (kept.sha256 === undefined || sha256Of(readFileSync(path)) === kept.sha256) return path;
      throw new ConfigError(
        `${runDir} was cut from the task file ${kept.file}, and ${what} ${path} has changed since (its SHA-256 is not the recorded ${kept.sha256}); restore it to use the run's tasks`,
        { code: 'changed-split-file' },
      );
    };
    const copy = resolve(runDir, kept.copy);
    if (existsSync(copy)) return unchanged(copy, "the run's copy");
    if (existsSync(kept.file)) return unchanged(kept.file, 'with the copy gone, the file');
    throw new ConfigError(
      `${runDir} was cut from the task file ${kept.file}, and neither it nor the run's copy ${copy} is there`,
      { code: 'missing-split-file' },
    );
  }
  if (typeof config.splits !== 'string') return undefined;
  const name = /^(.+) cut 60\/20\/20 /.exec(config.splits)?.[1];
  // Runs recorded before they kept a copy name a task file as it was typed, maybe relative.
  if (name !== undefined && looksLikeTaskFile(name) && !existsSync(name))
    throw new ConfigError(
      isAbsolute(name)
        ? `${runDir} was cut from the task file ${name}, which is not there any more (the run keeps no copy of it)`
        : `${runDir} was cut from the task file ${name}, recorded as it was typed (the run keeps no copy of it), and there is no such file from ${process.cwd()}: run the command from the folder the run was started in`,
      { code: 'missing-split-file' },
    );
  return name;
}

/** A run's record of the task file it was cut from and its copy, if it has one. */
export function keptSplit(config: RecordedSplit): KeptSplit | undefined {
  const kept = config.split as { file?: unknown; copy?: unknown; sha256?: unknown } | undefined;
  return typeof kept?.file === 'string' && typeof kept.copy === 'string'
    ? { file: kept.file, copy: kept.copy, ...(typeof kept.sha256 === 'string' ? { sha256: kept.sha256 } : {}) }
    : undefined;
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
  /**
   * The split a training run cut (its `--split`, `recordedSplit`), when the tasks are that run's;
   * read only when `split` is one of the run's cuts.
   */
  cutFrom?: () => string | undefined,
): Promise<{ taskSet: TaskSet<T>; name?: string }> {
  const cut = trainingSplits.find((name) => name === split);
  if (!cut) return { taskSet: await loadNamedSplit(environment, split, '--data FILE') };
  // A run that cut a split of its own held out its own test tasks, whatever the environment ships.
  const from = cutFrom?.();
  if (environment.splits.includes(split) && from === undefined)
    return { taskSet: await environment.loadTasks({ split }) };
  const splits = await loadTaskSplits(environment, from);
  return { taskSet: { tasks: splits[cut], unloadable: [] }, name: `${cut} (${splits.source})` };
}

/**
 * Where else the environment ships tasks a command named and did not find in its split:
 * ` (task-7 is in split test: --split test)`, or '' (nowhere else).
 */
export async function otherSplitsOf(
  environment: Environment,
  ids: readonly string[],
  current?: string,
): Promise<string> {
  const found: string[] = [];
  for (const split of environment.splits) {
    if (split === current) continue;
    const loaded = await environment.loadTasks({ split }).catch(() => undefined);
    if (!loaded) continue;
    const here = new Set([...loaded.tasks.map((task) => task.id), ...loaded.unloadable.map((item) => item.id)]);
    const which = ids.filter((id) => here.has(id));
    if (which.length)
      found.push(`${which.join(', ')} ${which.length > 1 ? 'are' : 'is'} in split ${split}: --split ${split}`);
  }
  return found.length ? ` (${found.join('; ')})` : '';
}
