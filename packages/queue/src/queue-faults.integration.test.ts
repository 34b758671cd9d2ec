import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { type AttemptBatch, inProcessRunner, type Trajectory } from '@harness-s/core';
import { type CounterTask, createCounterEnvironment } from '@harness-s/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { counterRequests, createSeededCounterPolicy, withoutRunDetails } from '../test/counter-fleet.js';
import {
  PrivateRedis,
  redisServerSkipReason,
  sharedRedisSkipReason,
  sharedRedisUrl,
  spawnCounterWorker,
  type WorkerProcess,
} from '../test/redis-fixtures.js';
import { createQueueRunner, type QueueRunner, type QueueRunnerEvent } from './queue-runner.js';

const sharedSkip = await sharedRedisSkipReason();
const serverSkip = redisServerSkipReason();

async function batchOf(count: number): Promise<AttemptBatch<CounterTask>> {
  return {
    runId: 'runs/queue-faults',
    environment: createCounterEnvironment().environment,
    policy: createSeededCounterPolicy(0.6),
    requests: await counterRequests(count),
    maxInfraRetries: 1,
  };
}

/** Attempt ids a worker process logged as done. */
const doneIn = (worker: WorkerProcess): string[] =>
  worker.lines.flatMap((line) => /: done (\S+):/.exec(line)?.[1] ?? []);

const fleet: WorkerProcess[] = [];
const runners: QueueRunner[] = [];
afterEach(async () => {
  for (const worker of fleet.splice(0)) {
    worker.kill('SIGKILL');
    await worker.exited;
  }
  for (const runner of runners.splice(0)) await runner.close().catch(() => undefined);
});

function runnerFor(redisUrl: string, queueName: string, events: QueueRunnerEvent[], maxTries = 2): QueueRunner {
  const runner = createQueueRunner({
    redisUrl,
    runDir: 'unused',
    queueName,
    pollIntervalMs: 100,
    maxTries,
    unreachableTimeoutMs: 30_000,
    onEvent: (event) => events.push(event),
  });
  runners.push(runner);
  return runner;
}

describe.skipIf(sharedSkip !== null)('rollout workers that die', () => {
  it('a worker killed with SIGKILL mid-attempt: its job runs elsewhere, no attempt lost or doubled', async () => {
    const queueName = `test-${randomUUID()}`;
    const options = ['--slow', '300', '--lock', '2000', '--stalled', '1000', '--concurrency', '2'];
    const [doomed, survivor] = [0, 1].map(() => spawnCounterWorker(sharedRedisUrl, queueName, options)) as [
      WorkerProcess,
      WorkerProcess,
    ];
    fleet.push(doomed, survivor);
    await Promise.all([doomed.waitFor(/ready/), survivor.waitFor(/ready/)]);
    const batch = await batchOf(12);
    const running = runnerFor(sharedRedisUrl, queueName, []).run(batch);

    const started = await doomed.waitFor(/: start /);
    doomed.kill('SIGKILL');
    const orphan = /: start (\S+) /.exec(started)?.[1];
    const results = await running;

    expect(results.map(withoutRunDetails)).toEqual((await inProcessRunner(2).run(batch)).map(withoutRunDetails));
    expect(doneIn(doomed)).not.toContain(orphan);
    expect(doneIn(survivor)).toContain(orphan);
    expect(survivor.lines.some((line) => line.includes(`stalled ${orphan}`))).toBe(true);
    const done = [...doneIn(doomed), ...doneIn(survivor)];
    expect(done).toHaveLength(12);
    expect(new Set(done).size).toBe(12);

    // SIGTERM: the survivor stops by itself, having nothing left to hand back.
    survivor.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);
    expect(survivor.lines.some((line) => line.includes('stopped'))).toBe(true);
  }, 60_000);

  it('a job that crashes every worker process is parked after a bounded number of tries, and the batch completes', async () => {
    const queueName = `test-${randomUUID()}`;
    const options = ['--crash-on', 'count-2', '--concurrency', '1', '--lock', '1500', '--stalled', '1000'];
    let crashes = 0;
    let stopping = false;
    const supervise = async () => {
      while (!stopping) {
        const worker = spawnCounterWorker(sharedRedisUrl, queueName, [...options, '--max-stalled', '1']);
        fleet.push(worker);
        const code = await worker.exited;
        if (code === 70) crashes += 1;
        if (crashes > 6) throw new Error('the poison job was retried without bound');
      }
    };
    const supervisor = supervise();
    const events: QueueRunnerEvent[] = [];
    const batch = await batchOf(3);
    const results = await runnerFor(sharedRedisUrl, queueName, events).run(batch);
    stopping = true;
    for (const worker of fleet) worker.kill('SIGKILL');
    await supervisor;

    const local = await inProcessRunner(2).run(batch);
    for (const [index, trajectory] of results.entries()) {
      if (trajectory.taskId === 'count-2') {
        expect(trajectory.stopReason).toBe('infrastructure-error');
        expect(trajectory.evaluation).toBeNull();
      } else {
        expect(withoutRunDetails(trajectory)).toEqual(withoutRunDetails(local[index] as Trajectory));
      }
    }
    const parked = events.filter((event) => event.kind === 'parked');
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ tries: 2, reason: expect.stringMatching(/stopped .* on every try/) });
    // One poisoned attempt, two tries: maxStalledCount 1 lets one crash go back to the queue.
    expect(crashes).toBe(2);
  }, 90_000);
});

/** A free loopback port, 6390 when it is free. */
async function freePort(preferred = 6390): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : port));
      });
    });
  return tryPort(preferred).catch(() => tryPort(0));
}

describe.skipIf(serverSkip !== null)('a Redis restarted mid-batch (no persistence)', () => {
  it('loses the queue, and the producer enqueues the lost attempts again: same results, none doubled', async () => {
    const redis = new PrivateRedis(await freePort());
    try {
      await redis.start();
      const queueName = `test-${randomUUID()}`;
      const options = ['--slow', '150', '--lock', '2000', '--stalled', '1000', '--concurrency', '2'];
      const workers = [0, 1].map(() => spawnCounterWorker(redis.url, queueName, options));
      fleet.push(...workers);
      await Promise.all(workers.map((worker) => worker.waitFor(/ready/)));
      const events: QueueRunnerEvent[] = [];
      const batch = await batchOf(18);
      const running = runnerFor(redis.url, queueName, events).run(batch);
      while (workers.reduce((sum, worker) => sum + doneIn(worker).length, 0) < 5) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await redis.restart(500);
      const results = await running;

      expect(results.map(withoutRunDetails)).toEqual((await inProcessRunner(2).run(batch)).map(withoutRunDetails));
      const lost = events.filter((event) => event.kind === 'requeued' && event.reason === 'lost');
      expect(lost.length).toBeGreaterThan(0);
      // Every attempt has one result; the ones Redis forgot were run again, the others were not.
      const done = workers.flatMap(doneIn);
      expect(new Set(done).size).toBe(18);
      expect(done.length).toBeLessThanOrEqual(18 + lost.length);
    } finally {
      await redis.dispose();
    }
  }, 90_000);
});
