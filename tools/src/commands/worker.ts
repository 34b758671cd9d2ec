import { InfrastructureError } from '@harness-s/core';
import { createHarness } from '@harness-s/harness-dsh';
import { checkRedisUrl, pingRedis, redactRedisUrl, startRolloutWorker } from '@harness-s/queue';
import { createEnvironment, environmentOptions } from '../environments.js';
import { policyFromDescription } from '../policies.js';

export interface WorkerFlags {
  redis: string;
  env: string;
  concurrency: number;
  /** Serve this queue only (default: every announced training run of the environment). */
  queue?: string;
  name?: string;
  /** Job lock, ms. */
  lockDuration: number;
  /** Stalled-job check period, ms. */
  stalledInterval: number;
  maxStalled: number;
  /** How long SIGTERM waits for running attempts before handing them back, ms. */
  grace: number;
  /** Heartbeat log period, ms (0: none). */
  heartbeat: number;
  scoring?: string;
  /** dbbench: where episodes run (`pglite:`, `postgres://...`, `mysql://...`). */
  db?: string;
  /** swegym: `docker` (default) or `local`, which needs `unconfined`. */
  sandbox?: string;
  /** Let a model's commands run where nothing confines them (swegym `--sandbox local`). */
  unconfined?: boolean;
  quiet?: boolean;
}

/**
 * `harness-s worker`: runs rollout jobs of training runs (`train --redis`) with this machine's
 * environment, until SIGTERM or SIGINT. The first signal stops taking jobs and lets the running
 * attempts finish (up to `--grace`), handing back whatever is still running then; a second SIGINT
 * hands back at once. Logs one line per attempt and a heartbeat.
 */
export async function runWorker(flags: WorkerFlags): Promise<void> {
  const log = (line: string) => {
    if (!flags.quiet) process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  };
  const warned = new Set<string>();
  const warnOnce = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    process.stderr.write(`${new Date().toISOString()} warning: ${message}\n`);
  };
  const redisUrl = checkRedisUrl(flags.redis);
  // A job may name any policy, a model included, so what it does must run confined (or --unconfined).
  const environment = createEnvironment(flags.env, { ...environmentOptions(flags), actionsFrom: 'model' });
  const signals: Array<[NodeJS.Signals, () => void]> = [];
  try {
    const reachable = await pingRedis(redisUrl, 5000);
    if (!reachable.ok) {
      throw new InfrastructureError(`cannot reach Redis at ${redactRedisUrl(flags.redis)}: ${reachable.reason}`, {
        code: 'queue-unreachable',
      });
    }
    const worker = await startRolloutWorker({
      redisUrl: flags.redis,
      factories: {
        environment,
        harness: (spec) => createHarness(spec, `harness ${spec.id} of a rollout job`),
        // A job's model that answers without the token ids or log-probabilities asked for is told
        // in the worker's log, once per kind (the runs it serves cannot see the worker's policy).
        policy: (description) => policyFromDescription(description, { warn: warnOnce }),
      },
      concurrency: flags.concurrency,
      ...(flags.queue ? { queueName: flags.queue } : {}),
      ...(flags.name ? { name: flags.name } : {}),
      lockDurationMs: flags.lockDuration,
      stalledIntervalMs: flags.stalledInterval,
      maxStalledCount: flags.maxStalled,
      heartbeatMs: flags.heartbeat,
      log,
    });
    await new Promise<void>((resolve, reject) => {
      let interrupts = 0;
      const stop = (graceMs: number) => worker.close({ graceMs }).then(resolve, reject);
      // A repeated SIGTERM changes nothing (a wrapper such as tsx may relay the same signal twice).
      const onTerm = () => {
        log(`SIGTERM: stopping`);
        stop(flags.grace);
      };
      const onInterrupt = () => {
        interrupts += 1;
        log(interrupts === 1 ? 'SIGINT: stopping (again to hand running attempts back at once)' : 'SIGINT again');
        stop(interrupts === 1 ? flags.grace : 0);
      };
      signals.push(['SIGTERM', onTerm], ['SIGINT', onInterrupt]);
      for (const [signal, handler] of signals) process.on(signal, handler);
    });
  } finally {
    for (const [signal, handler] of signals) process.off(signal, handler);
    await environment.close();
  }
}
