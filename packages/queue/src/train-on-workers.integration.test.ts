import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOutcome } from '@harness-s/tests';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, pingRedis, queueNameForRun, runRegistryKey } from './index.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = ['--conditions=source', join(root, 'tools/src/cli.ts')];
const tsx = join(root, 'node_modules/.bin/tsx');
// A database index of this test's own, so other users of the shared Redis never see its queue.
const redisUrl = process.env['HARNESS_S_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379/9';
const inCi = Boolean(process.env['CI']) && process.env['CI'] !== 'false';

const ping = await pingRedis(redisUrl);
if (!ping.ok) {
  const reason = `Redis at ${redisUrl} is unreachable (${ping.reason})`;
  if (inCi) throw new Error(`${reason}; CI must run the distributed training test (.ci/services.sh starts Redis)`);
  console.warn(`skipping the distributed training test: ${reason}`);
}

// h0-resample rescues without a router, which keeps both runs short (no profiles to anchor).
const trainArgs = [
  'train',
  '--env',
  'dbbench',
  '--method',
  'h0-resample',
  '--steps',
  '3',
  '--batch-size',
  '3',
  '--k',
  '3',
  '--eval-k',
  '1',
  '--seed',
  '4',
  '--quiet',
];

function runCli(args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<string>;
}

/** A `harness-s worker` process in its own process group (tsx runs the CLI in a child process). */
function startWorker(name: string): Worker {
  const child = spawn(
    tsx,
    [
      ...cli,
      'worker',
      '--redis',
      redisUrl,
      '--env',
      'dbbench',
      '--name',
      name,
      '--concurrency',
      '2',
      // Short locks so a killed worker's job goes elsewhere within seconds; two crashes before parking.
      '--lock-duration',
      '4000',
      '--stalled-interval',
      '2000',
      '--max-stalled',
      '2',
      '--heartbeat',
      '2000',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const lines: string[] = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.find((line) => pattern.test(line));
        if (found) return found;
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`worker ${name}: no line matching ${pattern}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

const killGroup = (worker: Worker, signal: NodeJS.Signals) => {
  if (worker.child.exitCode === null && worker.child.signalCode === null && worker.child.pid) {
    try {
      process.kill(-worker.child.pid, signal);
    } catch {
      // already gone
    }
  }
};

const doneBy = (worker: Worker): string[] => worker.lines.flatMap((line) => /: done (\S+):/.exec(line)?.[1] ?? []);

describe.skipIf(!ping.ok)('training with rollouts on worker processes (BullMQ on Redis)', () => {
  const workers: Worker[] = [];
  afterAll(async () => {
    for (const worker of workers) {
      killGroup(worker, 'SIGKILL');
      await worker.exited;
    }
  });

  it('survives a worker killed with SIGKILL mid-step and ends as the in-process run', async () => {
    const base = await mkdtemp(join(tmpdir(), 'queue-train-'));
    const inProcess = join(base, 'in-process');
    const queued = join(base, 'queued');
    expect(await runCli([...trainArgs, '--out', inProcess])).toBe(0);

    const [doomed, survivor] = [startWorker('doomed'), startWorker('survivor')];
    workers.push(doomed, survivor);
    await Promise.all([doomed.waitFor(/ready/, 60_000), survivor.waitFor(/ready/, 60_000)]);
    const run = runCli([...trainArgs, '--out', queued, '--redis', redisUrl]);

    // Kill it once it has taken an attempt of step 2 or 3.
    const started = await doomed.waitFor(/: start [23]:/, 120_000);
    killGroup(doomed, 'SIGKILL');
    await doomed.exited;
    const orphan = /: start (\S+) /.exec(started)?.[1] as string;
    expect(await run).toBe(0);

    expect(await runOutcome(queued)).toEqual(await runOutcome(inProcess));
    // Who ran the killed worker's attempt, as the run recorded it: the worker whose result it took.
    const records = (await readFile(join(queued, 'trajectories.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { id: string; ranOn?: string });
    expect(records.filter((record) => !/^(doomed|survivor)@/.test(record.ranOn ?? ''))).toEqual([]);
    const recorded = records.filter((record) => record.id === orphan);
    expect(recorded, `${orphan} recorded once`).toHaveLength(1);
    const ranOn = recorded[0]?.ranOn?.split('@')[0];
    // What each worker said of the orphan, to explain a failure of the checks below.
    const story = () =>
      `${orphan} ran on ${recorded[0]?.ranOn}: doomed said ${JSON.stringify(doomed.lines.filter((line) => line.includes(orphan)))}, survivor said ${JSON.stringify(survivor.lines.filter((line) => line.includes(orphan)))}`;
    const stalled = survivor.lines.some((line) => line.includes(`stalled ${orphan}`));
    if (ranOn === 'survivor') {
      // The usual case: the stalled-job check found the killed worker's job and handed it on.
      await survivor.waitFor(new RegExp(`: done ${orphan.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`), 5_000);
      expect(doneBy(survivor), story()).toContain(orphan);
      expect(stalled, story()).toBe(true);
    } else {
      // The killed worker finished it and the queue heard before SIGKILL; its own "done" line may
      // be lost with it (a pipe's writes are asynchronous). The survivor ran it only if the
      // stalled-job check handed it on meanwhile (delivery is at least once; the run took one result).
      expect(ranOn, story()).toBe('doomed');
      if (doneBy(survivor).includes(orphan)) expect(stalled, story()).toBe(true);
    }
    // Each worker ran it at most once.
    const doneCount = (worker: Worker) => doneBy(worker).filter((id) => id === orphan).length;
    expect(
      [doneCount(doomed), doneCount(survivor)].every((count) => count <= 1),
      story(),
    ).toBe(true);

    // The evaluations under H0 ran on the workers too: after the last step, every test task once
    // (--eval-k 1) on the survivor, the doomed worker being gone by then.
    const { testTasks } = JSON.parse(await readFile(join(queued, 'summary.json'), 'utf8')) as { testTasks: number };
    const evaluated = doneBy(survivor).filter((id) => id.startsWith('eval-3:'));
    expect(testTasks).toBeGreaterThan(0);
    expect(new Set(evaluated).size).toBe(testTasks);
    expect([...doneBy(doomed), ...doneBy(survivor)].some((id) => id.startsWith('eval-0:'))).toBe(true);

    // The run's queue is gone from Redis once the survivor has left it (within its discovery period).
    const connection = connectRedis(redisUrl, 'producer');
    try {
      const queueName = queueNameForRun(queued);
      const entry = JSON.parse((await connection.hget(runRegistryKey, queueName)) ?? '{}');
      expect(entry).toMatchObject({ queueName, ended: true });
      await survivor.waitFor(new RegExp(`left queue ${queueName} \\(run ended\\)`), 10_000);
      expect(await connection.keys(`harness-s:${queueName}:*`)).toEqual([]);
    } finally {
      connection.disconnect();
    }

    // SIGTERM (to the tsx process, which relays it once): the survivor stops by itself.
    process.kill(survivor.child.pid as number, 'SIGTERM');
    expect(await survivor.exited).toBe(0);
  }, 300_000);
});
