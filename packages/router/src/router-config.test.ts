import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Trainer, train } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { counterPolicy } from './__fixtures__/counter-policy.js';
import { handProfiles, selectTask } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter } from './adaptive-router.js';
import type { Ranker } from './rankers.js';

const profiles = handProfiles({ h0: { a: 1, b: 0 }, v1: { a: 2, b: 3 }, v2: { a: 0, b: 1 } });
const ranker = (id: string, weight: number, rank: Ranker['rank'] = async () => ['v1', 'v2']): Ranker => ({
  id,
  weight,
  rank,
});

describe('the adaptive router refuses what it cannot run, by name', () => {
  it('refuses a decay outside (0, 1] and a ranker weight that is negative or not a number, when made', () => {
    for (const decay of [0, -0.5, 1.5, Number.NaN])
      expect(() => new AdaptiveRouter({ profiles, decay })).toThrow(`decay must be in (0, 1], got ${decay}`);
    expect(() => new AdaptiveRouter({ profiles, decay: 1 })).not.toThrow();
    for (const weight of [-1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new AdaptiveRouter({ profiles, rankers: [ranker('mine', weight)] })).toThrow(
        `ranker mine: weight must be a finite number of at least 0, got ${weight}`,
      );
  });

  it("names the ranker and the task when a ranker fails; the run's own errors pass as they are", async () => {
    const boom = ranker('mine', 1, async () => {
      throw new TypeError('boom');
    });
    const failing = new AdaptiveRouter({ profiles, rankers: [boom], mode: 'fixed' });
    const error = await failing.order(selectTask('t-1')).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('ranker mine failed on task t-1: boom');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    const refusal = new ConfigError('no such profile', { code: 'x' });
    const refusing = new AdaptiveRouter({
      profiles,
      mode: 'fixed',
      rankers: [
        ranker('mine', 1, async () => {
          throw refusal;
        }),
      ],
    });
    await expect(refusing.order(selectTask('t-1'))).rejects.toBe(refusal);
    // A system error keeps its code, so that it is reported as one.
    const reading = new AdaptiveRouter({
      profiles,
      mode: 'fixed',
      rankers: [ranker('mine', 1, async () => (await readFile('/no/such/ranker-data.json', 'utf8')).split(','))],
    });
    await expect(reading.order(selectTask('t-1'))).rejects.toMatchObject({
      message: expect.stringMatching(/^ranker mine failed on task t-1: ENOENT/),
      code: 'ENOENT',
      syscall: 'open',
      path: '/no/such/ranker-data.json',
    });
  });

  it('says when it needs validation tasks, and train refuses a run without them before any attempt', async () => {
    expect(new AdaptiveRouter().needsValidationTasks(1)).toBe(true);
    // With profiles, an adaptive router re-anchors only before step reanchorEvery + 1.
    const adaptive = new AdaptiveRouter({ profiles, mode: 'adaptive', reanchorEvery: 4 });
    expect([4, 5].map((steps) => adaptive.needsValidationTasks(steps))).toEqual([false, true]);
    expect(new AdaptiveRouter({ profiles, mode: 'fixed' }).needsValidationTasks(50)).toBe(false);

    const { environment, stats } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const policy = counterPolicy('v0', () => false);
    const trainer: Trainer = {
      id: 'frozen',
      policy,
      update: async () => ({ policy, stats: {} }),
      state: () => null,
      restore() {},
    };
    const h0 = createPlainHarness();
    const pool = [{ ...h0, spec: { ...h0.spec, id: 'v1', parent: h0.spec.id, direction: 'v1' } }];
    await expect(
      train({
        config: { method: 'harness-s', steps: 1, batchSize: 1, k: 2 },
        environment,
        tasks: { train: tasks, test: tasks },
        h0,
        pool,
        router: new AdaptiveRouter(),
        trainer,
        dir: join(await mkdtemp(join(tmpdir(), 'router-')), 'run'),
      }),
    ).rejects.toThrow(
      "router adaptive needs validation tasks (its needsValidationTasks says so), and tasks.validation is empty: give the split's validation tasks, or start from profiles with a router that keeps them",
    );
    expect(stats.opened).toBe(0);
  });
});
