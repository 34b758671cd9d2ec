import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttemptBatch,
  type AttemptRequest,
  type AttemptRunner,
  describeError,
  InfrastructureError,
  type Task,
  type Trajectory,
  trajectoryId,
  zeroUsage,
} from '@harness-s/core';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { checkRedisUrl, connectRedis, redactRedisUrl } from './connection.js';
import { jobIdForAttempt, keyPrefix, queueNameForRun } from './names.js';
import { RolloutJob, RolloutResult } from './rollout-job.js';
import { announceRun, type RunEntry } from './run-registry.js';

/** What the producer reports while it waits: worth a log line each. */
export type QueueRunnerEvent =
  | { kind: 'enqueued'; queueName: string; attempts: number }
  | {
      kind: 'requeued';
      attemptId: string;
      /** `lost`: the job vanished (Redis restarted without persistence); `stale`: a result for other inputs. */
      reason: 'lost' | 'stale' | 'failed-earlier';
    }
  | { kind: 'parked'; attemptId: string; reason: string; tries: number }
  | { kind: 'redis-unreachable'; error: string }
  | { kind: 'redis-back'; downMs: number }
  | { kind: 'batch-done'; attempts: number; seconds: number }
  /** No worker has taken an attempt of the batch for `seconds` (said once per batch). */
  | { kind: 'idle'; queueName: string; seconds: number };

export interface QueueRunnerOptions {
  /** `redis://host:port[/db]`. */
  redisUrl: string;
  /** The run folder; the queue's name is derived from it (see `queueNameForRun`). */
  runDir: string;
  /** A queue name of your own instead (benchmarks, tests). */
  queueName?: string;
  /**
   * Tries of a job whose worker threw (a bug in an environment, say); a config error is not
   * retried. A job that crashes its worker process is bounded by the workers' `maxStalledCount`.
   * Default 3.
   */
  maxTries?: number;
  /** How often job states are read, in ms (default 200). */
  pollIntervalMs?: number;
  /** How long Redis may stay unreachable before the batch fails with an InfrastructureError (default 300 s). */
  unreachableTimeoutMs?: number;
  /** How long the first contact with Redis of a batch may take before it fails (default 15 s). */
  firstContactMs?: number;
  /** After how long without a worker taking an attempt the `idle` event is sent (default 30 s). */
  idleNoticeMs?: number;
  onEvent?: (event: QueueRunnerEvent) => void;
}

/** An attempt runner backed by a BullMQ queue; `close()` removes the run's queue from Redis. */
export interface QueueRunner extends AttemptRunner {
  readonly queueName: string;
  close(): Promise<void>;
}

interface PendingAttempt<T extends Task> {
  index: number;
  request: AttemptRequest<T>;
  job: RolloutJob;
}

/** The record of an attempt whose job was parked in the failed state: an infrastructure error, never scored. */
function parkedTrajectory<T extends Task>(
  batch: AttemptBatch<T>,
  request: AttemptRequest<T>,
  reason: string,
): Trajectory {
  return {
    schemaVersion: 1,
    id: trajectoryId(request.task.id, request.harness.spec.id, request.attempt),
    runId: batch.runId,
    env: batch.environment.id,
    split: request.task.split,
    taskId: request.task.id,
    harnessId: request.harness.spec.id,
    policyId: batch.policy.id,
    policyVersion: batch.policy.version,
    attempt: request.attempt,
    seed: request.seed,
    messages: [],
    turns: [],
    stopReason: 'infrastructure-error',
    evaluation: null,
    usage: zeroUsage(),
    timings: { startedAt: new Date().toISOString(), openMs: 0, evaluateMs: 0, totalMs: 0 },
    infraErrors: [{ try: 0, code: 'rollout-job-parked', message: reason }],
  };
}

/** Whether a worker's trajectory answers this job (a leftover of an earlier producer may not). */
function answers(job: RolloutJob, trajectory: Trajectory): boolean {
  return (
    trajectory.taskId === job.task.id &&
    trajectory.harnessId === job.harness.id &&
    trajectory.attempt === job.attempt &&
    trajectory.seed === job.seed &&
    trajectory.policyVersion === job.policyVersion &&
    trajectory.runId === job.runId
  );
}

/**
 * The training loop as producer: each batch's attempts become jobs on the run's queue (job id =
 * attempt id, so an attempt is never enqueued twice), `harness-s worker` processes run them, and
 * the producer polls the jobs' states until every attempt has a result, in request order.
 *
 * Faults: a job whose worker died is retried elsewhere by BullMQ's stalled-job check; a job that
 * vanished (Redis restarted without persistence) is enqueued again under the same id; a job that
 * failed on every try is parked in the failed state and recorded as an infrastructure error
 * (unscored), and the run goes on. A result is taken once; a later duplicate is ignored.
 */
export function createQueueRunner(options: QueueRunnerOptions): QueueRunner {
  checkRedisUrl(options.redisUrl);
  const queueName = options.queueName ?? queueNameForRun(options.runDir);
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const unreachableTimeoutMs = options.unreachableTimeoutMs ?? 300_000;
  const firstContactMs = options.firstContactMs ?? 15_000;
  const idleNoticeMs = options.idleNoticeMs ?? 30_000;
  const maxTries = options.maxTries ?? 3;
  const emit = options.onEvent ?? (() => undefined);
  let connection: Redis | undefined;
  let queue: Queue | undefined;
  let announced: RunEntry | undefined;

  const open = (): { connection: Redis; queue: Queue } => {
    if (!connection || !queue) {
      connection = connectRedis(options.redisUrl, 'producer');
      queue = new Queue(queueName, { connection, prefix: keyPrefix });
      // Outages are handled by the polling loop; the queue's own error events would only repeat them.
      queue.on('error', () => undefined);
    }
    return { connection, queue };
  };

  const enqueue = async <T extends Task>(queue: Queue, attempts: readonly PendingAttempt<T>[]): Promise<void> => {
    if (attempts.length === 0) return;
    await queue.addBulk(
      attempts.map(({ job }) => ({
        name: 'rollout',
        data: job,
        opts: {
          jobId: jobIdForAttempt(job.attemptId),
          attempts: maxTries,
          backoff: { type: 'fixed', delay: 1000 },
          removeOnComplete: false,
          removeOnFail: false,
        },
      })),
    );
  };

  const run = async <T extends Task>(batch: AttemptBatch<T>): Promise<Trajectory[]> => {
    const { connection, queue } = open();
    const started = performance.now();
    const policy = batch.policy.describe();
    const pending = new Map<string, PendingAttempt<T>>();
    for (const [index, request] of batch.requests.entries()) {
      const job = RolloutJob.parse({
        schemaVersion: 1,
        runId: batch.runId,
        attemptId: request.attemptId,
        env: batch.environment.id,
        task: { id: request.task.id, split: request.task.split },
        harness: request.harness.spec,
        policy,
        policyVersion: batch.policy.version,
        attempt: request.attempt,
        seed: request.seed,
        maxInfraRetries: batch.maxInfraRetries,
      });
      pending.set(jobIdForAttempt(request.attemptId), { index, request, job });
    }
    const results = new Array<Trajectory | undefined>(batch.requests.length);
    const announce = () => {
      announced = { queueName, env: batch.environment.id, runId: batch.runId, updatedAt: Date.now() };
      return announceRun(connection, announced);
    };

    try {
      // A Redis that refuses connections keeps a command waiting through its reconnections: bounded here.
      await Promise.race([
        announce(),
        sleep(firstContactMs, undefined, { ref: false }).then(() => {
          throw new Error(`no answer within ${firstContactMs / 1000} s`);
        }),
      ]);
    } catch (error) {
      throw new InfrastructureError(
        `cannot reach the rollout queue's Redis at ${redactRedisUrl(options.redisUrl)}: ${describeError(error)}`,
        { code: 'queue-unreachable', cause: error },
      );
    }
    // Jobs left by an earlier producer of this run (a resumed run): a parked one gets a fresh
    // chance, one made for other inputs is replaced; an identical one is kept and its result used.
    await Promise.all(
      [...pending].map(async ([jobId, attempt]) => {
        const existing = await queue.getJob(jobId);
        if (!existing) return;
        const state = await existing.getState();
        const same = JSON.stringify(existing.data) === JSON.stringify(attempt.job);
        if (state === 'failed' || (!same && state !== 'active')) {
          // A worker may take it meanwhile; then it stays, and its result is checked like any other.
          const removed = await existing.remove().then(
            () => true,
            () => false,
          );
          if (removed)
            emit({ kind: 'requeued', attemptId: attempt.job.attemptId, reason: same ? 'failed-earlier' : 'stale' });
        }
      }),
    );
    await enqueue(queue, [...pending.values()]);
    emit({ kind: 'enqueued', queueName, attempts: pending.size });

    let downSince: number | null = null;
    let announcedAt = Date.now();
    // Since when no worker has taken an attempt of this batch (null once one has, or it was said).
    let idleSince: number | null = Date.now();
    while (pending.size > 0) {
      batch.signal?.throwIfAborted();
      try {
        if (Date.now() - announcedAt > 2000) {
          await announce();
          announcedAt = Date.now();
        }
        const entries = [...pending];
        const states = await Promise.all(entries.map(([jobId]) => queue.getJobState(jobId)));
        if (idleSince !== null) {
          const taken = states.some((state) => state === 'active' || state === 'completed' || state === 'failed');
          if (taken || pending.size < batch.requests.length) idleSince = null;
          else if (Date.now() - idleSince > idleNoticeMs) {
            // Workers busy with another batch of the run (profiling hands several over at once) are there.
            if ((await queue.getActiveCount()) > 0) idleSince = Date.now();
            else {
              emit({ kind: 'idle', queueName, seconds: Math.round((Date.now() - idleSince) / 1000) });
              idleSince = null;
            }
          }
        }
        const lost: PendingAttempt<T>[] = [];
        for (const [position, [jobId, attempt]] of entries.entries()) {
          const state = states[position];
          if (state === 'unknown') {
            lost.push(attempt);
            emit({ kind: 'requeued', attemptId: attempt.job.attemptId, reason: 'lost' });
            continue;
          }
          if (state !== 'completed' && state !== 'failed') continue;
          const job = await queue.getJob(jobId);
          if (!job) continue; // removed between the two reads: seen as lost on the next poll
          if (state === 'failed') {
            // A try that killed its worker counts as a stall, one that threw as an attempt made; a job
            // that stalled too often is failed by the next worker to pick it up, which counts once more.
            const stalledOut = /stalled more than allowable limit/.test(job.failedReason ?? '');
            const tries = job.stalledCounter + job.attemptsMade - (stalledOut ? 1 : 0);
            const why = stalledOut
              ? 'its worker stopped (crashed or was killed) on every try'
              : job.failedReason || 'unknown failure';
            const reason = `parked after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${why}`;
            results[attempt.index] = parkedTrajectory(batch, attempt.request, reason);
            pending.delete(jobId);
            emit({ kind: 'parked', attemptId: attempt.job.attemptId, reason, tries });
            continue;
          }
          const result = RolloutResult.safeParse(job.returnvalue);
          if (!result.success || !answers(attempt.job, result.data.trajectory)) {
            await job.remove();
            lost.push(attempt);
            emit({ kind: 'requeued', attemptId: attempt.job.attemptId, reason: 'stale' });
            continue;
          }
          const { name, host, pid } = result.data.worker;
          results[attempt.index] = { ...result.data.trajectory, ranOn: `${name}@${host}:${pid}` };
          pending.delete(jobId);
        }
        await enqueue(queue, lost);
        if (downSince !== null) {
          emit({ kind: 'redis-back', downMs: Date.now() - downSince });
          downSince = null;
          // A Redis that came back empty has lost the announcement too.
          await announce();
          announcedAt = Date.now();
        }
      } catch (error) {
        if (downSince === null) {
          downSince = Date.now();
          emit({ kind: 'redis-unreachable', error: describeError(error) });
        } else if (Date.now() - downSince > unreachableTimeoutMs) {
          throw new InfrastructureError(
            `the rollout queue's Redis has been unreachable for ${Math.round((Date.now() - downSince) / 1000)} s: ${describeError(error)}`,
            { code: 'queue-unreachable', cause: error },
          );
        }
      }
      if (pending.size > 0) {
        // An abort ends the wait at once and surfaces the caller's reason, not the timer's AbortError.
        await sleep(pollIntervalMs, undefined, batch.signal ? { signal: batch.signal } : {}).catch(() => undefined);
      }
    }

    // The batch's jobs are done with; removing them keeps the queue small over a long run.
    await Promise.all(
      batch.requests.map((request) => queue.remove(jobIdForAttempt(request.attemptId)).catch(() => undefined)),
    );
    emit({ kind: 'batch-done', attempts: batch.requests.length, seconds: (performance.now() - started) / 1000 });
    return results.map((trajectory) => trajectory as Trajectory);
  };

  return {
    id: 'bullmq',
    queueName,
    run,
    async close() {
      if (!connection || !queue) return;
      const opened = { connection, queue };
      connection = undefined;
      queue = undefined;
      try {
        // A Redis that is not there has nothing to clean, and commands to it would wait through reconnections.
        if (opened.connection.status !== 'ready') return;
        await opened.queue.obliterate({ force: true });
        // Workers leave an ended run's queue at once, and remove what their presence wrote to it.
        if (announced) await announceRun(opened.connection, { ...announced, updatedAt: Date.now(), ended: true });
      } finally {
        const ready = opened.connection.status === 'ready';
        if (!ready) opened.connection.disconnect();
        // Without a connection, closing may wait for one that never comes: bounded then.
        await (ready
          ? opened.queue.close()
          : Promise.race([opened.queue.close().catch(() => undefined), sleep(2000, undefined, { ref: false })]));
        opened.connection.disconnect();
      }
    },
  };
}

/** One log line for the events worth a reader's attention; null for routine ones. */
export function formatQueueEvent(event: QueueRunnerEvent): string | null {
  switch (event.kind) {
    case 'requeued':
      return event.reason === 'lost'
        ? `queue: ${event.attemptId} vanished from Redis (restarted?); enqueued again`
        : `queue: ${event.attemptId} had a ${event.reason === 'stale' ? 'result for other inputs' : 'parked job from before'}; enqueued again`;
    case 'parked':
      return `queue: ${event.attemptId} ${event.reason}; recorded as an infrastructure error`;
    case 'redis-unreachable':
      return `queue: Redis unreachable (${event.error}); waiting for it`;
    case 'idle':
      return `queue: no worker has taken an attempt for ${event.seconds} s; start one with harness-s worker --redis URL (it serves ${event.queueName})`;
    case 'redis-back':
      return `queue: Redis reachable again after ${(event.downMs / 1000).toFixed(1)} s`;
    default:
      return null;
  }
}
