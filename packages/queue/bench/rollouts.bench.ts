/**
 * Rollout throughput through the job queue: a fixed number of attempts (BENCH_ATTEMPTS, default 120)
 * of the simulated policy on DBBench (embedded engine) under H0, run in this process (the baseline)
 * and on 1, 2 and 4 `harness-s worker` processes fed by a BullMQ queue. Worker start-up (process,
 * engine) is excluded: every worker has finished a warm-up attempt before the clock starts.
 * Needs Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/10); without it, says so and stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AttemptBatch, type AttemptRequest, deriveSeed, inProcessRunner, type Task } from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedPolicy } from '@harness-s/policy';
import { createQueueRunner, pingRedis } from '../src/index.js';

const attempts = Number(process.env['BENCH_ATTEMPTS'] ?? 120);
const concurrency = Number(process.env['BENCH_CONCURRENCY'] ?? 4);
const redisUrl = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379/10';
const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = ['--conditions=source', join(root, 'tools/src/cli.ts')];

const ping = await pingRedis(redisUrl);
if (!ping.ok) {
  console.log(`queue benchmark skipped: Redis at ${redisUrl} is unreachable (${ping.reason})`);
  process.exit(0);
}

const environment = createDbbenchEnvironment();
const { tasks } = await environment.loadTasks({ split: 'dev' });
const h0 = await resolveHarness('dbbench', 'h0');
const policy = new SimulatedPolicy();

function batchOf(prefix: string, count: number): AttemptBatch {
  const requests: AttemptRequest<Task>[] = Array.from({ length: count }, (_, index) => {
    const task = tasks[index % tasks.length] as Task;
    const attempt = Math.floor(index / tasks.length);
    return {
      attemptId: `${prefix}:${task.id}#h0#${attempt}`,
      task,
      harness: h0,
      attempt,
      seed: deriveSeed(1, task.id, attempt),
    };
  });
  return {
    runId: 'bench',
    environment: environment as unknown as AttemptBatch['environment'],
    policy,
    requests,
    maxInfraRetries: 2,
  };
}

interface Row {
  setup: string;
  processes: number;
  seconds: number;
}
const rows: Row[] = [];

// Baseline: the same attempts in this process, engine started beforehand.
await inProcessRunner(concurrency).run(batchOf('warm', concurrency));
let start = performance.now();
const local = await inProcessRunner(concurrency).run(batchOf('bench', attempts));
rows.push({ setup: 'in process', processes: 1, seconds: (performance.now() - start) / 1000 });
const localSuccesses = local.filter((trajectory) => trajectory.evaluation?.success).length;

function startWorker(queueName: string): { child: ChildProcess; done: () => number } {
  const child = spawn(
    join(root, 'node_modules/.bin/tsx'),
    [
      ...cli,
      'worker',
      '--redis',
      redisUrl,
      '--queue',
      queueName,
      '--concurrency',
      String(concurrency),
      '--heartbeat',
      '0',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let done = 0;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    done += chunk.split('\n').filter((line) => line.includes(': done ')).length;
  });
  return { child, done: () => done };
}

for (const processes of [1, 2, 4]) {
  const queueName = `bench-${processes}-${randomUUID()}`;
  const workers = Array.from({ length: processes }, () => startWorker(queueName));
  const runner = createQueueRunner({ redisUrl, runDir: 'bench', queueName, pollIntervalMs: 50 });
  try {
    // Warm-up rounds until every worker has run an attempt (process and engine started).
    for (let round = 0; workers.some((worker) => worker.done() === 0); round += 1) {
      if (round >= 20) throw new Error('workers did not start');
      await runner.run(batchOf(`warm-${round}`, processes * concurrency));
    }
    start = performance.now();
    const queued = await runner.run(batchOf('bench', attempts));
    rows.push({ setup: 'queue', processes, seconds: (performance.now() - start) / 1000 });
    const successes = queued.filter((trajectory) => trajectory.evaluation?.success).length;
    if (successes !== localSuccesses)
      throw new Error(`queued run solved ${successes} attempts, in process ${localSuccesses}: results differ`);
  } finally {
    await runner.close();
    for (const { child } of workers) child.kill('SIGTERM');
    await Promise.all(workers.map(({ child }) => new Promise((resolve) => child.once('exit', resolve))));
  }
}
await environment.close();

const baseline = rows[0]?.seconds ?? 1;
console.log(
  `${attempts} DBBench attempts (simulated policy, H0), ${concurrency} in flight per process; ${localSuccesses} solved in every setup`,
);
console.log('setup        processes   seconds   episodes/s   vs in process');
for (const row of rows) {
  console.log(
    `${row.setup.padEnd(12)} ${String(row.processes).padStart(9)} ${row.seconds.toFixed(2).padStart(9)} ${(attempts / row.seconds).toFixed(1).padStart(12)} ${(baseline / row.seconds).toFixed(2).padStart(14)}x`,
  );
}
