import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { captureStderr } from '../__fixtures__/stderr.js';
import { runTrain } from './train.js';

/** The router's profiles as the run's last checkpoint keeps them. */
async function routerProfiles(run: string) {
  const checkpoint = JSON.parse(await readFile(join(run, 'checkpoints', 'latest.json'), 'utf8')) as {
    router: {
      profiles: {
        tasks: Array<{ id: string; features: string[]; h0Failures?: Record<string, number> }>;
        h0: { outcomes: Record<string, { attempts: number }> };
      };
    };
  };
  return checkpoint.router.profiles;
}

/** Attempts per validation task of H0's profile. */
async function profileAttempts(run: string): Promise<number[]> {
  const { h0 } = await routerProfiles(run);
  return [...new Set(Object.values(h0.outcomes).map((outcome) => outcome.attempts))];
}

describe('train --profile-k and --profile-tasks', () => {
  let dir = '';
  let pool = '';
  const flags = () => ({ env: 'dbbench', method: 'harness-s', steps: 1, k: 2, seed: 1, batchSize: 2, pool, evalK: 1 });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'train-profile-k-'));
    pool = join(dir, 'pool');
    await writePool(pool);
    await runTrain({ ...flags(), concurrency: 4, quiet: true, out: join(dir, 'default') });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sets the attempts per validation task and harness of the router’s profiles (2 by default)', async () => {
    await runTrain({ ...flags(), profileK: 5, concurrency: 4, quiet: true, out: join(dir, 'five') });
    expect(await profileAttempts(join(dir, 'default'))).toEqual([2]);
    expect(await profileAttempts(join(dir, 'five'))).toEqual([5]);
  });

  it('anchors on a sample of the validation tasks covering their categories', async () => {
    const all = await routerProfiles(join(dir, 'default'));
    await runTrain({ ...flags(), profileTasks: 6, concurrency: 4, quiet: true, out: join(dir, 'six') });
    const sampled = await routerProfiles(join(dir, 'six'));
    expect(all.tasks).toHaveLength(12);
    expect(sampled.tasks).toHaveLength(6);
    expect(Object.keys(sampled.h0.outcomes).sort()).toEqual(sampled.tasks.map((task) => task.id).sort());
    const ids = new Set(all.tasks.map((task) => task.id));
    expect(sampled.tasks.every((task) => ids.has(task.id))).toBe(true);
    const categories = (tasks: Array<{ features: string[] }>) =>
      new Set(tasks.flatMap((task) => task.features.filter((feature) => feature.startsWith('category='))));
    expect(categories(all.tasks).size).toBeLessThanOrEqual(6);
    expect(categories(sampled.tasks)).toEqual(categories(all.tasks));
    const config = JSON.parse(await readFile(join(dir, 'six', 'config.json'), 'utf8')) as {
      flags: Record<string, unknown>;
    };
    expect(config.flags['profileTasks']).toBe(6);
  });

  it('says so when asked for more profile tasks than there are validation tasks', async () => {
    const log = await captureStderr(() =>
      runTrain({ ...flags(), profileTasks: 40, concurrency: 4, out: join(dir, 'forty') }),
    );
    expect(log).toContain(
      'note: --profile-tasks 40, but there are 12 validation tasks: profiles are anchored on them all',
    );
    expect((await routerProfiles(join(dir, 'forty'))).tasks).toHaveLength(12);
  });
});

describe('train --failure-ranker', () => {
  let dir = '';
  let pool = '';
  const flags = () => ({ env: 'dbbench', method: 'harness-s', steps: 1, k: 2, seed: 1, batchSize: 2, pool, evalK: 1 });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'train-failure-ranker-'));
    pool = join(dir, 'pool');
    await writePool(pool);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("records how H0 failed each validation task in the router's profiles, and the ranker's weight", async () => {
    const run = join(dir, 'weighted');
    await runTrain({ ...flags(), failureRanker: 3, concurrency: 4, quiet: true, out: run });
    const { tasks } = await routerProfiles(run);
    const failed = tasks.filter((task) => Object.keys(task.h0Failures ?? {}).length > 0);
    expect(failed.length).toBeGreaterThan(0);
    // Signatures are the built-in analysis's repair directions, counted per failed attempt (k = 2).
    const directions = new Set(failed.flatMap((task) => Object.keys(task.h0Failures ?? {})));
    expect([...directions].every((direction) => /^[a-z]+(-[a-z]+)*$/.test(direction))).toBe(true);
    expect(
      failed.every((task) => Object.values(task.h0Failures ?? {}).every((count) => count >= 1 && count <= 2)),
    ).toBe(true);
    const config = JSON.parse(await readFile(join(run, 'config.json'), 'utf8')) as { flags: Record<string, unknown> };
    expect(config.flags['failureRanker']).toBe(3);
    // Without it the router reads no failures, and records none.
    await runTrain({ ...flags(), concurrency: 4, quiet: true, out: join(dir, 'plain') });
    expect((await routerProfiles(join(dir, 'plain'))).tasks.every((task) => task.h0Failures === undefined)).toBe(true);
  });

  it('is refused for a method without a router', async () => {
    await expect(
      runTrain({
        ...flags(),
        method: 'grpo',
        failureRanker: true,
        concurrency: 4,
        quiet: true,
        out: join(dir, 'grpo'),
      }),
    ).rejects.toThrow(/--failure-ranker/);
  });
});
