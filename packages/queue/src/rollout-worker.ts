import { hostname } from 'node:os';
import {
  ConfigError,
  describeError,
  type Environment,
  type Harness,
  type HarnessSpec,
  InputError,
  type Policy,
  runAttempt,
  type Task,
} from '@harness-s/core';
import { type Job, Queue, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectRedis } from './connection.js';
import { attemptIdOfJob, keyPrefix } from './names.js';
import { type PolicyDescription, RolloutJob, type RolloutResult, type WorkerIdentity } from './rollout-job.js';
import { listRuns } from './run-registry.js';

/**
 * How a worker turns job data back into objects. Tools wire in the environment packages, the
 * harness builder and the policy packages, so this package depends on core only.
 */
export interface RolloutFactories {
  /** The environment this worker serves, open for the worker's life (the caller closes it). */
  environment: Environment;
  harness(spec: HarnessSpec): Harness;
  policy(description: PolicyDescription): Policy;
}

export interface RolloutWorkerOptions {
  redisUrl: string;
  factories: RolloutFactories;
  /** Attempts in flight at once, per run queue served. */
  concurrency: number;
  /** Serve this queue only; by default every announced run of this worker's environment is served. */
  queueName?: string;
  /** Shown in logs and stored on the jobs it runs (default `<host>-<pid>`). */
  name?: string;
  /** A job's lock lasts this long and is renewed at half of it while the attempt runs (default 30 s). */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose worker died (default 30 s). */
  stalledIntervalMs?: number;
  /** A job found stalled more often than this (it keeps killing its workers) is parked as failed (default 1). */
  maxStalledCount?: number;
  /** A heartbeat log line every this many ms (default 10 s; 0 for none). */
  heartbeatMs?: number;
  /** How often the run registry is read for new queues (default 1 s). */
  discoveryIntervalMs?: number;
  log?: (line: string) => void;
}

export interface RolloutWorkerStats {
  active: string[];
  completed: number;
  handedBack: number;
  failed: number;
  queues: string[];
}

export interface RolloutWorker {
  readonly name: string;
  stats(): RolloutWorkerStats;
  /**
   * Stops taking jobs and waits up to `graceMs` (default 60 s) for the attempts in flight; the ones
   * still running then are interrupted and handed back to the queue for another worker. Calling it
   * again with `graceMs: 0` hands back at once.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

interface ServedQueue {
  worker: Worker;
  connection: Redis;
  /** When the run was last seen in the registry. */
  seenAt: number;
}

/** A queue whose run left the registry this long ago is let go (a Redis restart empties the registry for a moment). */
const forgetQueueAfterMs = 10_000;

/** Keeps at most `size` entries, dropping the oldest. */
function remember<V>(cache: Map<string, V>, key: string, size: number, make: () => V): V {
  const found = cache.get(key);
  if (found !== undefined) return found;
  const value = make();
  cache.set(key, value);
  if (cache.size > size) cache.delete(cache.keys().next().value as string);
  return value;
}

/**
 * A rollout worker: takes attempts from the queues of announced training runs (or one named
 * queue), rebuilds task, harness and policy from the job's data, runs the attempt with the local
 * environment, and returns the trajectory with its evaluation. BullMQ renews each job's lock while
 * it runs; when a worker dies, another worker's stalled-job check hands its jobs to the next free
 * worker. Configuration mistakes (unknown task, a policy of other parameters) fail the job without
 * retries; other errors are retried by the queue up to the producer's limit, then parked.
 */
export async function startRolloutWorker(options: RolloutWorkerOptions): Promise<RolloutWorker> {
  const { environment } = options.factories;
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const identity: WorkerIdentity = { name, host: hostname(), pid: process.pid };
  const log = (line: string) => options.log?.(`worker ${name}: ${line}`);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const stalledInterval = options.stalledIntervalMs ?? 30_000;
  const maxStalledCount = options.maxStalledCount ?? 1;
  const served = new Map<string, ServedQueue>();
  const active = new Map<string, { queue: string; startedAt: number }>();
  const counts = { completed: 0, handedBack: 0, failed: 0 };
  const shutdown = new AbortController();
  let lastRedisError = 0;
  const onRedisError = (error: Error) => {
    // One line per outage burst, not one per reconnection try.
    if (Date.now() - lastRedisError > 5000) log(`redis: ${describeError(error)} (reconnecting)`);
    lastRedisError = Date.now();
  };

  const policies = new Map<string, Policy>();
  const harnesses = new Map<string, Harness>();
  const splits = new Map<string, Promise<Map<string, Task>>>();
  const taskFor = async (task: RolloutJob['task']): Promise<Task> => {
    const byId = remember(splits, task.split, 16, async () => {
      const { tasks } = await environment.loadTasks({ split: task.split });
      return new Map(tasks.map((item) => [item.id, item]));
    });
    const found = (await byId).get(task.id);
    if (!found)
      throw new ConfigError(`no task ${task.id} in split ${task.split} of ${environment.id}`, { code: 'no-task' });
    return found;
  };

  const processor = async (job: Job, token?: string, signal?: AbortSignal): Promise<RolloutResult> => {
    const attemptId = job.id ? attemptIdOfJob(job.id) : '(no id)';
    const parsed = RolloutJob.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`malformed rollout job: ${parsed.error.message}`);
    const data = parsed.data;
    const controller = AbortSignal.any(signal ? [shutdown.signal, signal] : [shutdown.signal]);
    active.set(attemptId, { queue: job.queueName, startedAt: performance.now() });
    const handBack = async (): Promise<never> => {
      await job.moveToWait(token);
      counts.handedBack += 1;
      log(`handed back ${attemptId}`);
      throw new WaitingError();
    };
    try {
      if (data.env !== environment.id)
        throw new ConfigError(`job for env ${data.env}, worker serves ${environment.id}`, { code: 'wrong-env' });
      const policy = remember(policies, JSON.stringify(data.policy), 8, () => options.factories.policy(data.policy));
      if (policy.version !== data.policyVersion) {
        throw new ConfigError(`rebuilt policy is ${policy.version}, the job wants ${data.policyVersion}`, {
          code: 'policy-mismatch',
        });
      }
      const harness = remember(harnesses, JSON.stringify(data.harness), 256, () =>
        options.factories.harness(data.harness),
      );
      const task = await taskFor(data.task);
      log(`start ${attemptId} (${job.queueName}, try ${job.attemptsStarted})`);
      const trajectory = await runAttempt(
        {
          environment,
          task,
          harness,
          policy,
          runId: data.runId,
          attempt: data.attempt,
          seed: data.seed,
          signal: controller,
        },
        {
          maxInfraRetries: data.maxInfraRetries,
          onRetry: (error, nextTry) => log(`${attemptId}: ${error.message}; try ${nextTry + 1}`),
        },
      );
      if (controller.aborted && trajectory.stopReason === 'infrastructure-error') return await handBack();
      counts.completed += 1;
      const outcome = trajectory.evaluation
        ? trajectory.evaluation.success
          ? 'success'
          : 'failure'
        : trajectory.stopReason;
      log(`done ${attemptId}: ${outcome} in ${Math.round(trajectory.timings.totalMs)} ms`);
      return { schemaVersion: 1, attemptId: data.attemptId, trajectory, worker: identity };
    } catch (error) {
      if (error instanceof WaitingError) throw error;
      if (shutdown.signal.aborted) return await handBack();
      counts.failed += 1;
      log(`failed ${attemptId}: ${describeError(error)}`);
      if (ConfigError.isInstance(error) || InputError.isInstance(error))
        throw new UnrecoverableError(describeError(error));
      throw error;
    } finally {
      active.delete(attemptId);
    }
  };

  const serve = (queueName: string, runId: string) => {
    const connection = connectRedis(options.redisUrl, 'worker', onRedisError);
    const worker = new Worker(queueName, processor, {
      connection,
      prefix: keyPrefix,
      name,
      concurrency: options.concurrency,
      lockDuration,
      stalledInterval,
      maxStalledCount,
    });
    worker.on('error', onRedisError);
    worker.on('stalled', (jobId) =>
      log(`stalled ${attemptIdOfJob(jobId)}: its worker stopped renewing the lock; back in the queue`),
    );
    worker.on('lockRenewalFailed', (jobIds) => log(`lock renewal failed for ${jobIds.map(attemptIdOfJob).join(', ')}`));
    served.set(queueName, { worker, connection, seenAt: Date.now() });
    log(`serving queue ${queueName} (run ${runId})`);
  };
  /** Stops serving a queue; for an ended run also removes the keys this worker's presence wrote to it. */
  const release = async (queueName: string, ended = false) => {
    const entry = served.get(queueName);
    if (!entry) return;
    served.delete(queueName);
    await entry.worker.close();
    if (ended) {
      const queue = new Queue(queueName, { connection: entry.connection, prefix: keyPrefix });
      await queue.obliterate({ force: true }).finally(() => queue.close());
    }
    entry.connection.disconnect();
    log(`left queue ${queueName}${ended ? ' (run ended)' : ''}`);
  };

  const registry = connectRedis(options.redisUrl, 'worker', onRedisError);
  let discovering = false;
  const discover = async () => {
    if (discovering || shutdown.signal.aborted) return;
    discovering = true;
    try {
      const now = Date.now();
      for (const run of await listRuns(registry, now)) {
        if (run.env !== environment.id || shutdown.signal.aborted) continue;
        const entry = served.get(run.queueName);
        if (run.ended) await release(run.queueName, true);
        else if (entry) entry.seenAt = now;
        else serve(run.queueName, run.runId);
      }
      for (const [queueName, entry] of served) if (now - entry.seenAt > forgetQueueAfterMs) await release(queueName);
    } catch (error) {
      onRedisError(error as Error);
    } finally {
      discovering = false;
    }
  };

  let discoveryTimer: NodeJS.Timeout | undefined;
  if (options.queueName) serve(options.queueName, 'named queue');
  else {
    await discover();
    discoveryTimer = setInterval(discover, options.discoveryIntervalMs ?? 1000);
  }
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const heartbeat =
    heartbeatMs > 0
      ? setInterval(() => {
          const running = [...active.keys()];
          log(
            `heartbeat: ${running.length} running${running.length ? ` (${running.join(', ')})` : ''}, ` +
              `${counts.completed} done, ${counts.failed} failed, ${counts.handedBack} handed back, queues ${served.size}`,
          );
        }, heartbeatMs)
      : undefined;
  log(
    `ready: env ${environment.id}, concurrency ${options.concurrency} per run, lock ${lockDuration} ms, ` +
      `stalled check every ${stalledInterval} ms, parked after ${maxStalledCount + 1} crashes`,
  );

  let closing: Promise<void> | undefined;
  return {
    name,
    stats: () => ({ active: [...active.keys()], ...counts, queues: [...served.keys()] }),
    close(closeOptions = {}) {
      const graceMs = closeOptions.graceMs ?? 60_000;
      const interrupt = () => {
        if (!shutdown.signal.aborted && active.size > 0) log(`interrupting ${active.size} attempts to hand them back`);
        shutdown.abort(new Error('the worker is stopping'));
      };
      if (closing) {
        if (graceMs === 0) interrupt();
        return closing;
      }
      clearInterval(discoveryTimer);
      clearInterval(heartbeat);
      log(
        `stopping: finishing ${active.size} running attempts (up to ${Math.round(graceMs / 1000)} s), taking no new ones`,
      );
      const timer = setTimeout(interrupt, graceMs);
      closing = (async () => {
        try {
          await Promise.all([...served.keys()].map((queueName) => release(queueName)));
        } finally {
          clearTimeout(timer);
          registry.disconnect();
          log(`stopped: ${counts.completed} done, ${counts.handedBack} handed back`);
        }
      })();
      return closing;
    },
  };
}
