import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Policy, readStepMetrics, type Trainer, train } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { counterPolicy } from './__fixtures__/counter-policy.js';
import { variant } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter } from './adaptive-router.js';

/** A trainer that keeps its policy: what is compared is the router's doing. */
const keeping = (policy: Policy): Trainer => ({
  id: 'keeping',
  policy,
  update: async () => ({ policy, stats: {} }),
  state: () => ({}),
  restore: () => {},
});

async function setup() {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  // H0 solves count-1 only; v-b solves every task, v-a none.
  const policy = counterPolicy('p0', (target, harnessId) => harnessId === 'v-b' || target === 1);
  const anchored: number[] = [];
  const router = () =>
    new AdaptiveRouter({ reanchorEvery: 2, profileK: 1, onAnchor: () => anchored.push(anchored.length) });
  const options = {
    config: {
      method: 'harness-s' as const,
      steps: 4,
      batchSize: 3,
      k: 2,
      seed: 3,
      evalK: 1,
      rescue: { variants: 2, attemptsPerVariant: 1 },
    },
    environment,
    tasks: { train: tasks, validation: tasks, test: tasks },
    h0: createPlainHarness(),
    pool: [variant('v-a'), variant('v-b')],
    trainer: keeping(policy),
  };
  return { options, router, anchored };
}

const comparable = async (dir: string) => (await readStepMetrics(dir)).map(({ durationMs: _, ...line }) => line);

describe('a run killed after re-anchoring', () => {
  it('resumes from the checkpoint written after the anchoring, without anchoring again, and ends as an uninterrupted run', async () => {
    const base = await mkdtemp(join(tmpdir(), 'reanchor-resume-'));
    const whole = await setup();
    await train({ ...whole.options, router: whole.router(), dir: join(base, 'whole') });
    // Anchored before steps 1 and 3.
    expect(whole.anchored).toHaveLength(2);

    const killed = await setup();
    const dir = join(base, 'killed');
    const stop = new AbortController();
    await expect(
      train({
        ...killed.options,
        router: killed.router(),
        dir,
        signal: stop.signal,
        // Step 3 re-anchored the profiles, then the run stops as its attempts start.
        onProgress: (progress) => {
          if (progress.step === 3 && progress.phase === 'base') stop.abort(new Error('stopped'));
        },
      }),
    ).rejects.toThrow();
    expect(killed.anchored).toHaveLength(2);
    expect(await readStepMetrics(dir)).toHaveLength(2);

    const resumed = await setup();
    await train({ ...resumed.options, router: resumed.router(), dir, resume: true });
    expect(resumed.anchored).toEqual([]);
    expect(await comparable(dir)).toEqual(await comparable(join(base, 'whole')));
  });
});
