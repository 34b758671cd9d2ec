/**
 * Memory of `harness-s export` on a large run: a real DBBench `harness-s` run (2 steps) whose
 * trajectories are copied, with longer observations, until `trajectories.jsonl` holds
 * BENCH_EXPORT_MB (default 300) megabytes; then the export, re-rendering rescued attempts under H0,
 * in a child process of its own. Beside it, the baseline measured in the same run: the same export
 * with the whole file in memory (read as one string, every attempt parsed, every line joined before
 * one write). Each prints its peak resident memory and its time.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { streamTrajectories, type Task, Trajectory, trainingExamples } from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0 } from '@harness-s/harness-dsh';
import { writePool } from '../src/__fixtures__/dbbench-pool.js';
import { runExport } from '../src/commands/export.js';
import { runTrain } from '../src/commands/train.js';
import { renderTable } from '../src/format.js';

const [mode, run, out] = process.argv.slice(2);

/** The export as it was written with the whole run in memory: the baseline. */
async function exportInMemory(dir: string, path: string): Promise<number> {
  const text = await readFile(join(dir, 'trajectories.jsonl'), 'utf8');
  const trajectories = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Trajectory.parse(JSON.parse(line)));
  const environment = createDbbenchEnvironment();
  const tasks: Task[] = [];
  for (const split of new Set(trajectories.map((trajectory) => trajectory.split)))
    tasks.push(...(await environment.loadTasks({ split })).tasks);
  await environment.close();
  const examples = trainingExamples(trajectories, { tasks, h0: createHarness(dbbenchH0()), context: 'h0' });
  await writeFile(path, examples.map((example) => `${JSON.stringify(example)}\n`).join(''));
  return examples.length;
}

if (mode === 'stream' || mode === 'memory') {
  const started = performance.now();
  const examples =
    mode === 'stream'
      ? (await runExport({ run: run as string, out: out as string, context: 'h0' })).examples
      : await exportInMemory(run as string, out as string);
  const seconds = (performance.now() - started) / 1000;
  // maxRSS is in kilobytes.
  console.log(JSON.stringify({ examples, seconds, peakMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const megabytes = Number(process.env['BENCH_EXPORT_MB'] ?? 300);
const dir = await mkdtemp(join(tmpdir(), 'harness-s-export-bench-'));
try {
  const pool = join(dir, 'pool');
  await writePool(pool);
  const runDir = join(dir, 'run');
  const common = { env: 'dbbench', pool, steps: 2, k: 4, batchSize: 8, seed: 3, evalK: 1, concurrency: 4 };
  // The run's own summary is not this bench's output.
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    await runTrain({ ...common, method: 'harness-s', quiet: true, out: runDir });
  } finally {
    process.stdout.write = write;
  }
  const file = join(runDir, 'trajectories.jsonl');
  const original: Trajectory[] = [];
  for await (const trajectory of streamTrajectories(runDir)) original.push(trajectory);
  // Copies with longer observations (as a real model's runs have), each with an id of its own.
  const padding = ' '.repeat(4000);
  const sink = createWriteStream(file, { flags: 'a' });
  let copies = 0;
  while ((await stat(file)).size + sink.writableLength < megabytes * 1e6) {
    copies += 1;
    for (const trajectory of original) {
      const copy = {
        ...trajectory,
        id: `${trajectory.id}~${copies}`,
        turns: trajectory.turns.map((turn) => ({
          ...turn,
          actions: turn.actions.map((action) => ({
            ...action,
            result: { ...action.result, observation: action.result.observation + padding },
          })),
        })),
      };
      if (!sink.write(`${JSON.stringify(copy)}\n`))
        await new Promise<void>((resolve) => sink.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve, reject) => sink.write('', (error) => (error ? reject(error) : resolve())));
  }
  await new Promise((resolve) => sink.end(resolve));
  const size = (await stat(file)).size / 1e6;

  const self = fileURLToPath(import.meta.url);
  const measure = (how: 'stream' | 'memory') => {
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=source', self, how, runDir, join(dir, `${how}.jsonl`)],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 },
    );
    return JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
      examples: number;
      seconds: number;
      peakMb: number;
    };
  };
  const streamed = measure('stream');
  let baseline: { examples: number; seconds: number; peakMb: number } | string;
  try {
    baseline = measure('memory');
  } catch (error) {
    baseline = `failed: ${(error as Error).message.split('\n')[0]}`;
  }
  const row = (setting: string, result: typeof streamed | string) =>
    typeof result === 'string'
      ? [setting, '-', '-', result]
      : [setting, String(result.examples), result.seconds.toFixed(1), result.peakMb.toFixed(0)];
  console.log(`export bench: a DBBench run of ${size.toFixed(0)} MB of trajectories, re-rendered under H0\n`);
  console.log(
    renderTable(
      ['setting', 'examples', 'seconds', 'peak memory (MB)'],
      [row('export (one attempt at a time)', streamed), row('baseline: whole run in memory', baseline)],
    ),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
