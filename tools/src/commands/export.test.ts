import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrajectories, type TrainingExample, trainingExamples } from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0 } from '@harness-s/harness-dsh';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { smallEvalFlags, writePool } from '../__fixtures__/dbbench-pool.js';
import { runEval } from './eval.js';
import { runExport } from './export.js';
import { runTrain } from './train.js';

const examples = async (path: string) =>
  (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TrainingExample);

describe('harness-s export', () => {
  let dir = '';
  let run = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-export-'));
    const pool = join(dir, 'pool');
    await writePool(pool);
    run = join(dir, 'run');
    await runTrain({
      env: 'dbbench',
      method: 'harness-s',
      pool,
      steps: 2,
      k: 2,
      batchSize: 4,
      seed: 3,
      evalK: 1,
      concurrency: 4,
      quiet: true,
      out: run,
    });
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the retained attempts as the run trained on them by default, or as asked', async () => {
    const byDefault = await runExport({ run });
    // The run re-rendered its rescued attempts under H0 (the default rescue context).
    expect(byDefault.path).toBe(join(run, 'batches-h0.jsonl'));
    const h0 = await examples(byDefault.path);
    expect(h0).toHaveLength(byDefault.examples);
    expect(h0.length).toBe(2 * 4 * 2);
    expect(h0.every((example) => example.context === 'h0')).toBe(true);
    // Written one attempt at a time, it is what the library's trainingExamples gives for the whole run.
    const environment = createDbbenchEnvironment();
    const tasks = (await readTrajectories(run)).map((trajectory) => trajectory.split);
    const loaded = await Promise.all([...new Set(tasks)].map((split) => environment.loadTasks({ split })));
    await environment.close();
    const inMemory = trainingExamples(await readTrajectories(run), {
      tasks: loaded.flatMap((set) => set.tasks),
      h0: createHarness(dbbenchH0()),
      context: 'h0',
    });
    expect(h0).toEqual(JSON.parse(JSON.stringify(inMemory)));
    expect(inMemory.some((example) => example.harnessId !== 'h0')).toBe(true);
    const asRendered = await runExport({ run, context: 'variant', out: join(dir, 'nested', 'deeper', 'b.jsonl') });
    // As rendered: the variants' attempts say so; the ones under H0 are H0's rendering either way.
    const rendered = await examples(asRendered.path);
    expect(rendered.some((example) => example.harnessId !== 'h0')).toBe(true);
    expect(rendered.every((example) => example.context === (example.harnessId === 'h0' ? 'h0' : 'variant'))).toBe(true);
    expect(h0.every((example) => example.trained)).toBe(true);
    const all = await runExport({ run, all: true, out: join(dir, 'all.jsonl') });
    // With --all, the attempts the update did not use come too, marked so and without an advantage.
    const everything = await examples(all.path);
    const untrained = everything.filter((example) => !example.trained);
    expect(untrained.length).toBeGreaterThan(0);
    expect(everything.length - untrained.length).toBe(h0.length);
    expect(untrained.every((example) => example.advantage === 0)).toBe(true);
    const trajectories = new Map((await readTrajectories(run)).map((trajectory) => [trajectory.id, trajectory]));
    for (const example of everything) {
      const training = trajectories.get(example.attemptId)?.training;
      expect(example.trained).toBe(Boolean(training?.retained && !training.dropped));
    }
  });

  it('refuses a torn last attempt in a run that ended, and leaves it out with a warning in one that did not', async () => {
    const copy = join(dir, 'torn');
    await cp(run, copy, { recursive: true });
    const file = join(copy, 'trajectories.jsonl');
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    // The last attempt cut in the middle, as a kill during its write leaves it.
    await writeFile(file, `${lines.slice(0, -1).join('\n')}\n${(lines.at(-1) as string).slice(0, 200)}`);
    await expect(runExport({ run: copy, all: true, out: join(dir, 'torn.jsonl') })).rejects.toThrow(
      `${file}:${lines.length}: the last line is cut short, though the run ended`,
    );
    expect(existsSync(join(dir, 'torn.jsonl'))).toBe(false);
    // Without summary.json the run may still be writing, or was killed: the attempt is left out, and said so.
    await rm(join(copy, 'summary.json'));
    const warned = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const partial = await runExport({ run: copy, all: true, out: join(dir, 'torn.jsonl') });
    const whole = await runExport({ run, all: true, out: join(dir, 'whole.jsonl') });
    expect(partial.examples).toBe(whole.examples - 1);
    expect(warned.mock.calls.map(([text]) => String(text)).join('')).toContain(
      `export: left out ${file}:${lines.length}, cut short`,
    );
    warned.mockRestore();
  });

  it('names a missing folder and a folder that is no training run', async () => {
    await expect(runExport({ run: join(dir, 'nope') })).rejects.toThrow(`export: no such folder ${join(dir, 'nope')}`);
    await expect(runExport({ run: join(dir, 'pool') })).rejects.toThrow(
      /pool is not a training run \(it has no config.json\)/,
    );
    await runEval({ ...smallEvalFlags, out: join(dir, 'eval') });
    await expect(runExport({ run: join(dir, 'eval') })).rejects.toThrow(
      /eval is not a training run \(config.json has no command 'train'\)/,
    );
    // A reproduction's folder points to its runs.
    const reproduction = join(dir, 'reproduction');
    await mkdir(reproduction);
    await writeFile(join(reproduction, 'config.json'), JSON.stringify({ command: 'reproduce' }));
    await expect(runExport({ run: reproduction })).rejects.toThrow(
      `a reproduction, whose training runs are its folders train/ENV/VARIANT/METHOD/seed-N, e.g. ${join(reproduction, 'train', 'dbbench', 'main', 'harness-s', 'seed-1')}`,
    );
  });
});
