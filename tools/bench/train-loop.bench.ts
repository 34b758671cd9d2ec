/**
 * Throughput of the whole training loop with the simulated policy on DBBench (embedded engine):
 * `h0-resample` (K attempts under H0, rescue of all-failed groups, advantages, updates, checkpoints,
 * evaluations under H0 before and after) at concurrency 1 and 8. Beside each, the baseline measured
 * in the same run: the same number of episodes as plain rollouts (`evaluate` under H0, nothing
 * written), so the difference is what the loop itself costs. Time inside the policy is summed over
 * its `respond` calls (the process is single-threaded, so it is CPU time at any concurrency); the
 * rest is the environment, the harness and the loop.
 *
 * BENCH_STEPS (default 4) steps of BENCH_BATCH (8) tasks x K = 8.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  evaluate,
  type Policy,
  type PolicySession,
  type ScoredGroup,
  type Task,
  type Trainer,
  type TrainerUpdate,
  train,
} from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { renderTable } from '../src/format.js';
import { loadTaskSplits } from '../src/task-splits.js';

const steps = Number(process.env['BENCH_STEPS'] ?? 4);
const batchSize = Number(process.env['BENCH_BATCH'] ?? 8);
const k = 8;

/** Counts episodes and sums the time spent in `respond`. */
class PolicyClock {
  episodes = 0;
  policyMs = 0;

  wrap(policy: Policy): Policy {
    return {
      id: policy.id,
      version: policy.version,
      needsPlan: policy.needsPlan,
      describe: () => policy.describe(),
      startEpisode: (context): PolicySession => {
        this.episodes += 1;
        const session = policy.startEpisode(context);
        return {
          respond: async (request) => {
            const start = performance.now();
            try {
              return await session.respond(request);
            } finally {
              this.policyMs += performance.now() - start;
            }
          },
        };
      },
    };
  }
}

/** The embedded trainer, with its policy timed. */
class TimedTrainer implements Trainer {
  readonly id: string;
  constructor(
    private readonly inner: SimulatedGrpoTrainer,
    private readonly clock: PolicyClock,
  ) {
    this.id = inner.id;
  }
  get policy(): Policy {
    return this.clock.wrap(this.inner.policy);
  }
  update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate> {
    return this.inner.update(groups, step);
  }
  state(): unknown {
    return this.inner.state();
  }
  restore(state: unknown): void {
    this.inner.restore(state);
  }
}

const environment = createDbbenchEnvironment();
const tasks = await loadTaskSplits(environment);
const h0 = await resolveHarness('dbbench', 'h0');
// Start the engine before any clock runs.
await evaluate({
  environment,
  taskSet: { tasks: tasks.test.slice(0, 1), unloadable: [] },
  split: 'test',
  harness: h0,
  policy: new SimulatedPolicy(),
  k: 1,
  seed: 0,
  concurrency: 1,
  runId: 'warm-up',
});

const rows: string[][] = [];
for (const concurrency of [1, 8]) {
  const dir = await mkdtemp(join(tmpdir(), 'harness-s-loop-bench-'));
  const clock = new PolicyClock();
  const trainer = new TimedTrainer(new SimulatedGrpoTrainer(new SimulatedPolicy()), clock);
  const started = performance.now();
  await train({
    config: { method: 'h0-resample', steps, batchSize, k, seed: 1, concurrency, evalEvery: steps },
    environment,
    tasks,
    h0,
    trainer,
    dir,
  });
  const loopMs = performance.now() - started;
  await rm(dir, { recursive: true, force: true });

  // The baseline: as many plain rollouts under H0, nothing written.
  const baselineClock = new PolicyClock();
  const repeats = Math.ceil(clock.episodes / tasks.train.length);
  const baselineStart = performance.now();
  await evaluate({
    environment,
    taskSet: { tasks: tasks.train as Task[], unloadable: [] },
    split: 'train',
    harness: h0,
    policy: baselineClock.wrap(new SimulatedPolicy()),
    k: repeats,
    seed: 1,
    concurrency,
    runId: 'baseline',
  });
  const baselineMs = performance.now() - baselineStart;

  const row = (setting: string, episodes: number, ms: number, policyMs: number) => [
    setting,
    String(concurrency),
    String(episodes),
    (ms / 1000).toFixed(2),
    (episodes / (ms / 1000)).toFixed(1),
    `${((1 - policyMs / ms) * 100).toFixed(1)}%`,
  ];
  rows.push(row('training loop (h0-resample)', clock.episodes, loopMs, clock.policyMs));
  rows.push(row('baseline: plain rollouts', baselineClock.episodes, baselineMs, baselineClock.policyMs));
}
await environment.close?.();

console.log(
  `training-loop bench: DBBench (embedded engine), simulated policy, ${steps} steps x ${batchSize} tasks x K=${k}\n`,
);
console.log(
  renderTable(['setting', 'concurrency', 'episodes', 'seconds', 'episodes/s', 'time outside the policy'], rows),
);
