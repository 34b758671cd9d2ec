import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../../harness.js';
import type { HarnessSpec } from '../../harness-spec.js';
import type { Policy } from '../../policy.js';
import { callTool, createCounterEnvironment, createPlainHarness } from '../../testing/index.js';
import { type AttemptRunner, inProcessRunner } from '../../attempt-runner.js';
import type { RescueRouter } from '../router.js';
import { train } from '../train-loop.js';
import type { ScoredGroup, Trainer } from '../trainer.js';

// A small rescue run for the loop's tests: the counter tasks, the plain harness as H0, and a pool
// of variants of it that the test policy solves under (`good-*`) or not (`bad-*`).

/** A harness like the plain one with another id (a "variant"), and a system prompt of its own. */
export function variant(id: string): Harness {
  const harness = createPlainHarness();
  const spec: HarnessSpec = {
    ...harness.spec,
    id,
    parent: 'plain',
    direction: id,
    prompt: { ...harness.spec.prompt, system: `${harness.spec.prompt.system} Variant ${id}.` },
  };
  return {
    ...harness,
    spec,
    start: (task) => [
      { role: 'system', content: spec.prompt.system },
      { role: 'user', content: task.instruction },
    ],
  };
}

/**
 * A policy that solves the counter only under harnesses whose id starts with `good`, or under H0
 * on task count-1; a stand-in for "a variant elicits what H0 does not".
 */
export const policy: Policy = {
  id: 'test',
  version: 'v0',
  needsPlan: false,
  describe: () => ({}),
  startEpisode(context) {
    const target = Number(context.task.id.split('-')[1]);
    const solves = context.harness.spec.id.startsWith('good') || target === 1;
    let turn = 0;
    return {
      async respond() {
        turn += 1;
        const message = turn === 1 ? callTool('add', { n: solves ? target : target + 1 }) : callTool('submit');
        return { message, usage: { promptTokens: 3, completionTokens: 7 } };
      },
    };
  },
};

export function recordingTrainer(): Trainer & { updates: ScoredGroup[][] } {
  const updates: ScoredGroup[][] = [];
  return {
    id: 'recording',
    policy,
    updates,
    async update(groups) {
      updates.push([...groups]);
      return { policy, stats: { groups: groups.length } };
    },
    state: () => ({ updates: updates.length }),
    restore() {},
  };
}

/** Trains the counter tasks for two steps of three tasks, K = 2, with a pool of three variants. */
export async function run(
  method: 'grpo' | 'h0-resample' | 'mixture' | 'harness-s',
  extra: Record<string, unknown> = {},
  router?: RescueRouter,
  trainer = recordingTrainer(),
  runner?: AttemptRunner,
) {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const dir = join(await mkdtemp(join(tmpdir(), 'train-')), 'run');
  const summary = await train({
    config: { method, steps: 2, batchSize: 3, k: 2, seed: 1, evalK: 1, concurrency: 2, ...extra },
    environment,
    tasks: { train: tasks, test: tasks },
    h0: createPlainHarness(),
    pool: [variant('good-a'), variant('bad-b'), variant('good-c')],
    trainer,
    dir,
    ...(router ? { router } : {}),
    ...(runner ? { runner } : {}),
  });
  return { summary, trainer, dir };
}

/** An in-process attempt runner that records the attempt ids it is handed. */
export function recordingRunner(): AttemptRunner & { ids: string[] } {
  const inner = inProcessRunner(2);
  const ids: string[] = [];
  return {
    id: 'recording',
    ids,
    run: (batch) => {
      ids.push(...batch.requests.map((request) => request.attemptId));
      return inner.run(batch);
    },
  };
}

/** What a refusal test trains with: the counter tasks, H0, a recording trainer and a fresh folder. */
export async function refusalSetup() {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const base = {
    environment,
    tasks: { train: tasks, test: tasks },
    h0: createPlainHarness(),
    trainer: recordingTrainer(),
  };
  return { base, dir: join(await mkdtemp(join(tmpdir(), 'train-')), 'run') };
}
