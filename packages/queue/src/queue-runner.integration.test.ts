import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type AttemptBatch, inProcessRunner } from '@harness-s/core';
import { type CounterTask, createCounterEnvironment } from '@harness-s/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  counterFactories,
  counterRequests,
  createSeededCounterPolicy,
  withoutRunDetails,
} from '../test/counter-fleet.js';
import { sharedRedisSkipReason, sharedRedisUrl } from '../test/redis-fixtures.js';
import { connectRedis } from './connection.js';
import { keyPrefix } from './names.js';
import { createQueueRunner, type QueueRunner, type QueueRunnerEvent } from './queue-runner.js';
import { type RolloutWorker, startRolloutWorker } from './rollout-worker.js';

const skipReason = await sharedRedisSkipReason();

async function batchOf(count: number, skill = 0.6): Promise<AttemptBatch<CounterTask>> {
  return {
    runId: 'runs/queue-test',
    environment: createCounterEnvironment().environment,
    policy: createSeededCounterPolicy(skill),
    requests: await counterRequests(count),
    maxInfraRetries: 1,
  };
}

describe.skipIf(skipReason !== null)('the BullMQ attempt runner', () => {
  const open: Array<RolloutWorker | QueueRunner> = [];
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close({ graceMs: 0 });
  });

  const setUp = async (options: { throwOn?: string; slowMs?: number; maxTries?: number } = {}) => {
    const queueName = `test-${randomUUID()}`;
    const events: QueueRunnerEvent[] = [];
    const worker = await startRolloutWorker({
      redisUrl: sharedRedisUrl,
      queueName,
      concurrency: 3,
      factories: counterFactories(options),
      heartbeatMs: 0,
    });
    const runner = createQueueRunner({
      redisUrl: sharedRedisUrl,
      runDir: 'unused',
      queueName,
      pollIntervalMs: 50,
      maxTries: options.maxTries ?? 2,
      onEvent: (event) => events.push(event),
    });
    open.push(worker, runner);
    return { queueName, worker, runner, events };
  };

  it('returns the same trajectories, in request order, as attempts run in process', async () => {
    const { runner, worker } = await setUp();
    const batch = await batchOf(12);
    const [queued, local] = await Promise.all([runner.run(batch), inProcessRunner(2).run(batch)]);
    expect(queued.map((trajectory) => trajectory.taskId)).toEqual(batch.requests.map((request) => request.task.id));
    expect(queued.map(withoutRunDetails)).toEqual(local.map(withoutRunDetails));
    // Each queued attempt names the worker it ran on; in process, none does.
    expect(new Set(queued.map((trajectory) => trajectory.ranOn))).toEqual(
      new Set([`${worker.name}@${hostname()}:${process.pid}`]),
    );
    expect(local.filter((trajectory) => trajectory.ranOn !== undefined)).toEqual([]);
    // Both outcomes occur, so equality says something about the seeds travelling intact.
    expect(new Set(queued.map((trajectory) => trajectory.evaluation?.success)).size).toBe(2);
    expect(worker.stats().completed).toBe(12);
  });

  /** Starts a batch and abandons it once `done` attempts completed, as a producer killed mid-step would. */
  const abandonAfter = async (
    runner: QueueRunner,
    worker: RolloutWorker,
    batch: AttemptBatch<CounterTask>,
    done: number,
  ) => {
    const controller = new AbortController();
    const running = runner.run({ ...batch, signal: controller.signal });
    while (worker.stats().completed < done) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('producer gone'));
    await expect(running).rejects.toThrow('producer gone');
  };

  it('takes each result once: a resumed producer uses the attempts its predecessor left, running none twice', async () => {
    const { runner, worker, queueName } = await setUp({ slowMs: 30 });
    const batch = await batchOf(12);
    await abandonAfter(runner, worker, batch, 3);
    const resumed = createQueueRunner({ redisUrl: sharedRedisUrl, runDir: 'unused', queueName, pollIntervalMs: 50 });
    open.push(resumed);
    const results = await resumed.run(batch);
    expect(results.map(withoutRunDetails)).toEqual((await inProcessRunner(2).run(batch)).map(withoutRunDetails));
    expect(worker.stats().completed).toBe(12);
  });

  it('re-runs leftovers made for other inputs (another policy version)', async () => {
    const { runner, worker, queueName } = await setUp({ slowMs: 30 });
    await abandonAfter(runner, worker, await batchOf(12, 0.1), 3);
    const events: QueueRunnerEvent[] = [];
    const resumed = createQueueRunner({
      redisUrl: sharedRedisUrl,
      runDir: 'unused',
      queueName,
      pollIntervalMs: 50,
      onEvent: (event) => events.push(event),
    });
    open.push(resumed);
    const fresh = await batchOf(12, 0.9);
    const results = await resumed.run(fresh);
    expect(results.every((trajectory) => trajectory.policyVersion === 'seeded-counter@0.9')).toBe(true);
    expect(results.map(withoutRunDetails)).toEqual((await inProcessRunner(2).run(fresh)).map(withoutRunDetails));
    expect(
      events.filter((event) => event.kind === 'requeued' && event.reason === 'stale').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('parks a job that fails on every try and records it as an unscored infrastructure error', async () => {
    const { runner, events, worker } = await setUp({ throwOn: 'count-2', maxTries: 2 });
    const batch = await batchOf(6);
    const results = await runner.run(batch);
    const poisoned = results.filter((trajectory) => trajectory.taskId === 'count-2');
    expect(poisoned).toHaveLength(2);
    for (const trajectory of poisoned) {
      expect(trajectory.stopReason).toBe('infrastructure-error');
      expect(trajectory.evaluation).toBeNull();
      expect(trajectory.infraErrors[0]?.code).toBe('rollout-job-parked');
      expect(trajectory.infraErrors[0]?.message).toMatch(/parked after 2 tries: poisoned task count-2/);
    }
    expect(results.filter((trajectory) => trajectory.evaluation !== null)).toHaveLength(4);
    expect(events.filter((event) => event.kind === 'parked')).toHaveLength(2);
    expect(worker.stats().failed).toBe(4);
  });

  it('removes its queue from Redis when closed', async () => {
    const { runner, queueName, worker } = await setUp();
    await runner.run(await batchOf(2));
    // A worker told to serve this one queue (not through the registry) never learns that the run ended.
    await worker.close();
    await runner.close();
    const connection = connectRedis(sharedRedisUrl, 'producer');
    try {
      expect(await connection.keys(`${keyPrefix}:${queueName}:*`)).toEqual([]);
    } finally {
      connection.disconnect();
    }
  });

  it('says when no worker takes the attempts, and stops waiting when aborted', async () => {
    const events: QueueRunnerEvent[] = [];
    const runner = createQueueRunner({
      redisUrl: sharedRedisUrl,
      runDir: 'unused',
      queueName: `test-${randomUUID()}`,
      pollIntervalMs: 50,
      idleNoticeMs: 300,
      onEvent: (event) => {
        events.push(event);
        if (event.kind === 'idle') controller.abort(new Error('no worker, as the test meant'));
      },
    });
    open.push(runner);
    const controller = new AbortController();
    await expect(runner.run({ ...(await batchOf(2)), signal: controller.signal })).rejects.toThrow(
      'no worker, as the test meant',
    );
    const idle = events.find((event) => event.kind === 'idle');
    expect(idle).toMatchObject({ kind: 'idle', queueName: runner.queueName });
  });

  it('does not say no worker is there while its workers run another batch of the run', async () => {
    const { queueName } = await setUp({ slowMs: 900 });
    const events: QueueRunnerEvent[] = [];
    const runner = createQueueRunner({
      redisUrl: sharedRedisUrl,
      runDir: 'unused',
      queueName,
      pollIntervalMs: 50,
      idleNoticeMs: 300,
      onEvent: (event) => events.push(event),
    });
    open.push(runner);
    // Three slow attempts fill the worker's three slots; the second batch waits behind them.
    const first = { ...(await batchOf(3)), requests: await counterRequests(3, 1) };
    const second = { ...(await batchOf(2)), requests: await counterRequests(2, 2) };
    const [a, b] = await Promise.all([runner.run(first), runner.run(second)]);
    expect([a.length, b.length]).toEqual([3, 2]);
    expect(events.filter((event) => event.kind === 'idle')).toEqual([]);
  });

  it('fails within its first-contact bound when nothing answers at the Redis URL', async () => {
    const runner = createQueueRunner({ redisUrl: 'redis://127.0.0.1:1', runDir: 'unused', firstContactMs: 1000 });
    open.push(runner);
    const started = Date.now();
    await expect(runner.run(await batchOf(1))).rejects.toThrow(
      /^cannot reach the rollout queue's Redis at redis:\/\/127\.0\.0\.1:1/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
