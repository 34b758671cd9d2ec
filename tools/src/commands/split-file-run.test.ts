import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { runEval } from './eval.js';
import { runExport } from './export.js';
import { runRescueStudy } from './rescue-study.js';
import { runTrain } from './train.js';

const dbbenchDev = fileURLToPath(new URL('../../../packages/env-dbbench/data/dev.jsonl', import.meta.url));

const evalFlags = { env: 'dbbench', policy: 'sim', harness: 'h0', concurrency: 2, quiet: true };

describe('a run trained on --split FILE', () => {
  it('keeps a copy of the file, so it is evaluated, exported, studied and resumed on its tasks once the file is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'split-file-run-'));
    const file = join(dir, 'mine.jsonl');
    const lines = (await readFile(dbbenchDev, 'utf8')).split('\n').filter(Boolean).slice(0, 20);
    await writeFile(file, `${lines.join('\n')}\n`);
    const run = join(dir, 'run');
    const training = { env: 'dbbench', method: 'grpo', k: 2, batchSize: 4, seed: 3, evalK: 1, concurrency: 2 };
    // A start that fails before the run begins (three tasks leave none to test on) leaves nothing
    // behind: the folder it made is gone, free for the next start.
    const tiny = join(dir, 'tiny.jsonl');
    await writeFile(tiny, `${lines.slice(0, 3).join('\n')}\n`);
    await expect(runTrain({ ...training, steps: 1, split: tiny, quiet: true, out: run })).rejects.toThrow(
      /no test tasks/,
    );
    expect(existsSync(run)).toBe(false);
    await runTrain({ ...training, steps: 1, split: file, quiet: true, out: run });

    const config = JSON.parse(await readFile(join(run, 'config.json'), 'utf8')) as {
      split: { file: string; copy: string; sha256: string };
      splits: string;
      trainTasks: string[];
      testTasks: string[];
    };
    expect(config.split).toEqual({
      file,
      copy: join('split', 'mine.jsonl'),
      sha256: createHash('sha256')
        .update(await readFile(file))
        .digest('hex'),
    });
    expect(await readFile(join(run, config.split.copy), 'utf8')).toBe(await readFile(file, 'utf8'));
    // One of the 20 lines has a column with an empty name and is not loaded: 19 tasks, cut 11/4/4.
    expect([config.trainTasks.length, config.testTasks.length]).toEqual([11, 4]);
    await rm(file);

    // The held-out test tasks, read from the run's copy.
    const evaluated = await runEval({
      ...evalFlags,
      checkpoint: run,
      split: 'test',
      k: 1,
      seed: 0,
      out: join(dir, 'eval'),
    });
    expect(evaluated.split).toMatch(/^test \(.*mine\.jsonl cut 60\/20\/20/);
    expect(evaluated.perTask.map((task) => task.id).sort()).toEqual([...config.testTasks].sort());

    // Its tasks are named after the file ('mine'), which is no split of DBBench's.
    const exported = await runExport({ run, all: true, context: 'h0' });
    expect(exported.examples).toBe(4 * 2);

    // The study replays the run on its own training tasks.
    const pool = join(dir, 'pool');
    await writePool(pool);
    const study = { run, pool, steps: [0], reps: 1, carryOver: 0.5, profileK: 1, concurrency: 2, quiet: true };
    const studied = await runRescueStudy(study);
    expect(studied.stages[0]?.groups).toBe(11);

    // A continued run cuts the same tasks from the copy, even one killed before its first checkpoint,
    // which writes its config again: it keeps its record of the original file.
    await rm(join(run, 'checkpoints'), { recursive: true });
    await runTrain({ ...training, steps: 2, split: file, quiet: true, resume: run });
    const resumed = JSON.parse(await readFile(join(run, 'config.json'), 'utf8')) as typeof config;
    expect(resumed.split).toEqual(config.split);
    expect(resumed.splits).toBe(config.splits);
    expect(resumed.splits).toBe(`${file} cut 60/20/20 by a hash of the task id`);
    const stepTwo = (await readFile(join(run, 'trajectories.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { taskId: string; training?: { step: number } })
      .filter((trajectory) => trajectory.training?.step === 2);
    expect(stepTwo).toHaveLength(4 * 2);
    expect(stepTwo.every((trajectory) => config.trainTasks.includes(trajectory.taskId))).toBe(true);
    const summary = JSON.parse(await readFile(join(run, 'summary.json'), 'utf8')) as { steps: number };
    expect(summary.steps).toBe(2);

    // Without the copy either, the run says what it misses where its tasks are needed, and is still
    // evaluated on tasks named otherwise.
    await rm(join(run, 'split'), { recursive: true });
    const missing = `${run} was cut from the task file ${file}, and neither it nor the run's copy ${join(run, 'split', 'mine.jsonl')} is there`;
    await expect(runRescueStudy(study)).rejects.toThrow(missing);
    const checkpointEval = { ...evalFlags, checkpoint: run, k: 1, seed: 0 };
    await expect(runEval({ ...checkpointEval, split: 'test', out: join(dir, 'e2') })).rejects.toThrow(missing);
    const onDev = await runEval({ ...checkpointEval, split: 'dev', limit: 2, out: join(dir, 'e3') });
    expect(onDev.tasks).toBe(2);

    // A file put back with other content is not taken for the run's: its tasks would be others.
    await writeFile(file, `${lines.slice(1).join('\n')}\n`);
    const changed = new RegExp(
      `the file ${file} has changed since \\(its SHA-256 is not the recorded ${config.split.sha256}\\)`,
    );
    await expect(runRescueStudy(study)).rejects.toThrow(changed);
    // Export re-renders only attempts under another harness than H0: this grpo run's need no task.
    expect((await runExport({ run, all: true, context: 'h0' })).examples).toBe(2 * 4 * 2); // two steps by now
    // Nor is an edited copy; the file as it was is used again.
    await mkdir(join(run, 'split'));
    await writeFile(join(run, config.split.copy), `${lines.slice(2).join('\n')}\n`);
    await expect(runTrain({ ...training, steps: 3, split: file, quiet: true, resume: run })).rejects.toThrow(
      /the run's copy .*mine\.jsonl has changed since/,
    );
    await rm(join(run, 'split'), { recursive: true });
    await writeFile(file, `${lines.join('\n')}\n`);
    expect((await runRescueStudy(study)).stages[0]?.groups).toBe(11);
  });
});
