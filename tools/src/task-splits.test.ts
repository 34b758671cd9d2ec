import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Environment, type Task, type TaskSource } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import {
  keepSplitFile,
  loadSplitOrFile,
  loadSplitTasks,
  loadTaskSplits,
  otherSplitsOf,
  recordedSplit,
} from './task-splits.js';

/** An environment that records what it was asked to load and makes ten tasks of it. */
function recordingEnvironment(splits: string[]): { environment: Environment; asked: TaskSource[] } {
  const asked: TaskSource[] = [];
  const environment = {
    id: 'recording',
    splits,
    skills: [],
    async loadTasks(source: TaskSource) {
      asked.push(source);
      const label = source.file ?? source.split ?? '';
      const tasks: Task[] = Array.from({ length: 10 }, (_, index) => ({
        id: `t${index}`,
        env: 'recording',
        split: label,
        instruction: '',
        tags: [],
      }));
      return { tasks, unloadable: [] };
    },
  } as unknown as Environment;
  return { environment, asked };
}

describe('--split', () => {
  it('reads a task file in place of a split, and cuts it 60/20/20 like one', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'splits-')), 'ids.txt');
    await writeFile(file, 't0\n');
    const { environment, asked } = recordingEnvironment(['dev']);
    const splits = await loadTaskSplits(environment, file);
    expect(asked).toEqual([{ file }]);
    expect([splits.train.length, splits.validation.length, splits.test.length]).toEqual([6, 2, 2]);
    expect(splits.source).toBe(`${file} cut 60/20/20 by a hash of the task id`);
    await loadSplitOrFile(environment, 'dev');
    await loadSplitOrFile(environment, join(file, '..'));
    expect(asked.slice(1)).toEqual([{ split: 'dev' }, { split: join(file, '..') }]);
  });

  it('names a task file that is not there, and the flag that reads one where a split is unknown', async () => {
    const { environment, asked } = recordingEnvironment(['dev']);
    const missing = join(tmpdir(), 'no-such-folder', 'ids.txt');
    for (const load of [() => loadTaskSplits(environment, missing), () => loadSplitOrFile(environment, missing)])
      await expect(load()).rejects.toMatchObject({
        code: 'missing-split-file',
        message: `no task file ${missing}: --split takes a split recording ships (dev) or a task file`,
      });
    await expect(loadTaskSplits(environment, 'tasks.jsonl')).rejects.toThrow(/^no task file .*tasks\.jsonl: /);
    expect(asked).toEqual([]);

    const refusing = {
      ...environment,
      loadTasks: async () => {
        throw new ConfigError("recording has no split 'nosuch'", { code: 'unknown-split' });
      },
    } as Environment;
    await expect(loadTaskSplits(refusing, 'nosuch')).rejects.toThrow(
      "recording has no split 'nosuch'; give a task file with --split FILE",
    );
    await expect(loadSplitTasks(refusing, 'nosuch')).rejects.toThrow(
      "recording has no split 'nosuch'; give a task file with --data FILE",
    );
  });

  it('refuses a task file or split that holds no task, by its name', async () => {
    const { environment } = recordingEnvironment(['dev']);
    const empty = { ...environment, loadTasks: async () => ({ tasks: [], unloadable: [] }) } as Environment;
    const file = join(await mkdtemp(join(tmpdir(), 'splits-')), 'empty.jsonl');
    await writeFile(file, '');
    await expect(loadTaskSplits(empty, file)).rejects.toMatchObject({
      code: 'no-loadable-tasks',
      message: `${file} holds no task`,
    });
    await expect(loadTaskSplits(empty, 'dev')).rejects.toThrow('split dev holds no task');
  });

  it('takes a split the environment ships by its name, even where a file has that name', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'splits-')), 'dev');
    await writeFile(file, 't0\n');
    const { environment, asked } = recordingEnvironment([file]);
    await loadSplitOrFile(environment, file);
    expect(asked).toEqual([{ split: file }]);
  });

  it("reads a run's recorded split: a name, or a task file recorded as typed, found from here or named as missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'recorded-split-'));
    const cut = (name: string) => ({ splits: `${name} cut 60/20/20 by a hash of the task id` });
    expect(recordedSplit(dir, cut('dev'))).toBe('dev');
    // A plug-in's split names may have dots and slashes: they are not taken for files.
    expect(recordedSplit(dir, cut('v1.5'))).toBe('v1.5');
    expect(recordedSplit(dir, cut('lite/dev'))).toBe('lite/dev');
    expect(recordedSplit(dir, { splits: 'shipped train/dev/test splits' })).toBeUndefined();
    const file = join(dir, 'ids.txt');
    await writeFile(file, 'a\n');
    expect(recordedSplit(dir, cut(file))).toBe(file);
    expect(() => recordedSplit(dir, cut('gone/ids.txt'))).toThrow(
      `${dir} was cut from the task file gone/ids.txt, recorded as it was typed (the run keeps no copy of it), and there is no such file from ${process.cwd()}`,
    );
    expect(() => recordedSplit(dir, cut(join(dir, 'gone.jsonl')))).toThrow(
      `${dir} was cut from the task file ${join(dir, 'gone.jsonl')}, which is not there any more`,
    );
  });

  it("takes a run's task file back after a line-ending conversion, and nothing else changed", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kept-split-'));
    const file = join(dir, 'ids.txt');
    await writeFile(file, 'a_1\nb_2\n');
    const kept = await keepSplitFile(join(dir, 'run'), { file });
    if (!kept) throw new Error('no record');
    await rm(join(dir, 'run', kept.copy));
    await writeFile(file, 'a_1\r\nb_2\r\n');
    expect(recordedSplit(join(dir, 'run'), { split: kept })).toBe(file);
    await writeFile(file, 'a_1\r\nb_3\r\n');
    expect(() => recordedSplit(join(dir, 'run'), { split: kept })).toThrow(/has changed since/);
  });
});

describe('a task not in the split asked for', () => {
  it('is looked for in the other splits the environment ships, which are named with the flag to give', async () => {
    // Ids name their split; split `broken` cannot be read and is passed over.
    const environment = {
      splits: ['dev', 'test', 'broken'],
      async loadTasks({ split }: TaskSource) {
        if (split === 'broken') throw new ConfigError('broken: no such file', { code: 'no-split' });
        return { tasks: [{ id: `${split}-1` }, { id: `${split}-2` }], unloadable: [{ id: `${split}-9`, reason: '' }] };
      },
    } as unknown as Environment;
    expect(await otherSplitsOf(environment, ['test-1', 'test-9', 'dev-2', 'gone'], 'dev')).toBe(
      ' (test-1, test-9 are in split test: --split test)',
    );
    expect(await otherSplitsOf(environment, ['dev-1', 'test-2'])).toBe(
      ' (dev-1 is in split dev: --split dev; test-2 is in split test: --split test)',
    );
    expect(await otherSplitsOf(environment, ['gone'], 'dev')).toBe('');
  });
});
