import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CounterTask, createCounterEnvironment, createPlainHarness } from '../testing/index.js';
import { policy, variant } from './__fixtures__/rescue-run.js';
import type { RescueRouter } from './router.js';
import { train } from './train-loop.js';
import type { Trainer } from './trainer.js';

describe('a training stack over its own task type', () => {
  it("hands a router and a trainer written for the environment's tasks those tasks, typed", async () => {
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    // Written against CounterTask: `target` is read without a cast, where `Task` has no such field.
    const chosenFor: number[] = [];
    const router: RescueRouter<CounterTask> = {
      id: 'by-target',
      async select(request) {
        chosenFor.push(request.task.target);
        return request.task.target === 2 ? ['good-a'] : ['bad-b'];
      },
      observe: (report) => chosenFor.push(-report.task.target),
      state: () => ({}),
      restore() {},
    };
    const trainedOn: number[][] = [];
    const trainer: Trainer<CounterTask> = {
      id: 'targets',
      policy,
      async update(groups) {
        trainedOn.push(groups.map((group) => group.task.target));
        return { policy, stats: {} };
      },
      state: () => ({}),
      restore() {},
    };
    const summary = await train({
      config: {
        method: 'harness-s',
        steps: 1,
        batchSize: 3,
        k: 2,
        seed: 1,
        evalK: 1,
        rescue: { variants: 1, attemptsPerVariant: 2 },
      },
      environment,
      tasks: { train: tasks, test: tasks },
      h0: createPlainHarness(),
      pool: [variant('good-a'), variant('bad-b')],
      router,
      trainer,
      dir: join(await mkdtemp(join(tmpdir(), 'typed-')), 'run'),
    });
    // Under H0 the test policy solves only target 1: targets 2 and 3 are rescued, 2 by a good variant.
    expect(trainedOn).toHaveLength(1);
    expect([...(trainedOn[0] ?? [])].sort()).toEqual([1, 2, 3]);
    expect(chosenFor.filter((target) => target > 0).sort()).toEqual([2, 3]);
    expect(chosenFor.filter((target) => target < 0).sort((a, b) => a - b)).toEqual([-3, -2]);
    expect(summary.rescueSuccessRate).toBe(0.5);
  });
});
