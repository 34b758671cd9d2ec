import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHarness } from '@harness-s/harness-dsh';
import type { ProfileSet } from '@harness-s/router';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvironment } from '../environments.js';
import { loadTaskSplits } from '../task-splits.js';
import { budgetFor } from './settings.js';
import { trainOne } from './train-one.js';

const environment = createEnvironment('dbbench');
afterAll(() => environment.close());

describe('one training run of a reproduction', () => {
  it('starts over in place when it was stopped before its first checkpoint', async () => {
    const root = await mkdtemp(join(tmpdir(), 'train-one-'));
    const dir = join(root, 'train', 'dbbench', 'main', 'grpo', 'seed-1');
    // What a run folder holds between opening and its first step.
    await mkdir(join(dir, 'checkpoints'), { recursive: true });
    await writeFile(join(dir, 'config.json'), '{}\n');
    await writeFile(join(dir, 'trajectories.jsonl'), '');
    await writeFile(join(dir, 'metrics.jsonl'), '');

    const budget = { ...budgetFor('dbbench', true), steps: 2, batchSize: 2, k: 2, evalK: 1, evalEvery: 2 };
    const { record } = await trainOne({
      root,
      environment,
      splits: await loadTaskSplits(environment),
      h0: await resolveHarness('dbbench', 'h0'),
      pool: [],
      budget,
      method: 'grpo',
      variant: 'main',
      seed: 1,
      concurrency: 2,
      // grpo routes nothing: no profiles are read.
      initialProfiles: {} as ProfileSet,
    });
    expect(record.steps).toBe(2);
    expect(record.runDir).toBe(join('train', 'dbbench', 'main', 'grpo', 'seed-1'));
  });
});
