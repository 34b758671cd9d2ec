/**
 * A counter rollout worker as its own process, for the fault tests:
 * `tsx --conditions=source test/counter-worker.ts REDIS_URL QUEUE [--crash-on TASK] [--slow MS] [--lock MS] [--stalled MS] [--max-stalled N]`.
 * Logs to stdout; stops gracefully on SIGTERM.
 */
import { startRolloutWorker } from '../src/index.js';
import { counterFactories } from './counter-fleet.js';

const [redisUrl, queueName, ...rest] = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const index = rest.indexOf(name);
  return index >= 0 ? rest[index + 1] : undefined;
};
const crashOn = flag('--crash-on');
const slowMs = Number(flag('--slow') ?? 0);
const worker = await startRolloutWorker({
  redisUrl: redisUrl ?? 'redis://127.0.0.1:6379',
  queueName: queueName ?? 'counter',
  concurrency: Number(flag('--concurrency') ?? 2),
  factories: counterFactories({ ...(crashOn ? { crashOn } : {}), slowMs }),
  lockDurationMs: Number(flag('--lock') ?? 2000),
  stalledIntervalMs: Number(flag('--stalled') ?? 1000),
  maxStalledCount: Number(flag('--max-stalled') ?? 1),
  heartbeatMs: 0,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.on('SIGTERM', () => {
  worker.close({ graceMs: 5000 }).then(() => process.exit(0));
});
