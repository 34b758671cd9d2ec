import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHarness } from '@harness-s/harness-dsh';
import type { ProfileSet } from '@harness-s/router';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvironment } from '../environments.js';
import { loadTaskSplits } from '../task-splits.js';
import { budgetFor } from './settings.js';
import { dropAnchorsAfterCheckpoint, type TrainOneOptions, trainOne } from './train-one.js';

const environment = createEnvironment('dbbench');
afterAll(() => environment.close());

describe('one training run of a reproduction', () => {
  it('starts over in place when stopped before its first checkpoint, and forgets anchors logged after one', async () => {
    const root = await mkdtemp(join(tmpdir(), 'train-one-'));
    const dir = join(root, 'train', 'dbbench', 'main', 'grpo', 'seed-1');
    // What a run folder holds between opening and its first step.
    await mkdir(join(dir, 'checkpoints'), { recursive: true });
    await writeFile(join(dir, 'config.json'), '{}\n');
    await writeFile(join(dir, 'trajectories.jsonl'), '');
    await writeFile(join(dir, 'metrics.jsonl'), '');

    const budget = { ...budgetFor('dbbench', true), steps: 2, batchSize: 2, k: 2, evalK: 1, evalEvery: 2 };
    const steps: string[] = [];
    const options: TrainOneOptions = {
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
      onStep: (label) => {
        steps.push(label);
      },
    };
    const { record } = await trainOne(options);
    expect(record.steps).toBe(2);
    expect(record.runDir).toBe(join('train', 'dbbench', 'main', 'grpo', 'seed-1'));
    expect(steps).toEqual(['dbbench grpo seed 1', 'dbbench grpo seed 1']);

    // Finished: not trained again, and its steps count as done for a continued reproduction's progress.
    const again = await trainOne(options);
    expect(again.record).toEqual(record);
    expect(steps.slice(2)).toEqual(['dbbench grpo seed 1, trained before', 'dbbench grpo seed 1, trained before']);

    // Anchors logged after the last checkpoint (step 2) are dropped before a resume, a cut line too.
    const line = (anchoredAtStep: number) => JSON.stringify({ step: anchoredAtStep + 1, anchoredAtStep });
    await writeFile(join(dir, 'router.jsonl'), `${line(1)}\n${line(2)}\n{"step": 4, "anch`);
    await dropAnchorsAfterCheckpoint(dir, []);
    expect(await readFile(join(dir, 'router.jsonl'), 'utf8')).toBe(`${line(1)}\n`);

    // A re-anchoring the checkpoint holds (made for step 3 on the step-2 policy) is not made again:
    // its line stays, and is written from the checkpoint when the kill came before it was.
    const checkpointPath = join(dir, 'checkpoints', 'latest.json');
    const checkpoint = JSON.parse(await readFile(checkpointPath, 'utf8'));
    const h0 = {
      harnessId: 'h0',
      parent: null,
      direction: null,
      description: 'H0',
      outcomes: {},
      successRate: 0,
      helps: [],
      hurts: [],
      byFeature: {},
      summary: '',
    };
    const profiles = {
      schemaVersion: 1,
      env: 'dbbench',
      policyVersion: 'sim-step-2',
      anchoredAtStep: 2,
      k: 1,
      seed: 1,
      tasks: [],
      h0,
      variants: [],
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await writeFile(checkpointPath, JSON.stringify({ ...checkpoint, router: { anchoredAt: 3, profiles } }));
    await writeFile(join(dir, 'router.jsonl'), `${line(1)}\n${line(2)}\n`);
    await dropAnchorsAfterCheckpoint(dir, []);
    expect(await readFile(join(dir, 'router.jsonl'), 'utf8')).toBe(`${line(1)}\n${line(2)}\n`);
    await writeFile(join(dir, 'router.jsonl'), `${line(1)}\n`);
    await dropAnchorsAfterCheckpoint(dir, []);
    const logged = (await readFile(join(dir, 'router.jsonl'), 'utf8')).trim().split('\n');
    expect(logged.map((text) => JSON.parse(text).anchoredAtStep)).toEqual([1, 2]);
    expect(JSON.parse(logged[1] as string)).toMatchObject({ step: 3, policyVersion: 'sim-step-2' });
  });
});
