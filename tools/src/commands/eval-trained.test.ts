import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSeed } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { runEval } from './eval.js';
import { runTrain } from './train.js';

const evalFlags = { env: 'dbbench', policy: 'sim', harness: 'h0', concurrency: 2, quiet: true };

describe('eval --checkpoint', () => {
  it("evaluates the policy a training run left, on the test tasks it held out, with the run's own numbers", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eval-trained-'));
    const run = join(dir, 'run');
    const summary = await runTrain({
      env: 'dbbench',
      method: 'grpo',
      steps: 3,
      k: 4,
      batchSize: 4,
      seed: 7,
      evalK: 2,
      concurrency: 2,
      quiet: true,
      out: run,
    });
    // The run's final evaluation: its test split (20% of dev by task id), seeded by the run's seed and step.
    const again = await runEval({
      ...evalFlags,
      checkpoint: run,
      split: 'test',
      k: 2,
      seed: deriveSeed(7, 'eval', 3),
      out: join(dir, 'final'),
    });
    expect(again.split).toMatch(/^test \(dev cut 60\/20\/20/);
    expect(again.tasks).toBe(12);
    expect({ passAtK: again.passAtK, avgAtK: again.avgAtK }).toEqual({
      passAtK: summary.evalUnderH0.passAtK,
      avgAtK: summary.evalUnderH0.avgAtK,
    });
    // The snapshot of step 0 is the untrained policy: what --policy sim evaluates.
    const untrained = { ...evalFlags, split: 'test', k: 2, seed: 11 };
    const fromSnapshot = await runEval({
      ...untrained,
      checkpoint: join(run, 'checkpoints', 'policy-step-0.json'),
      out: join(dir, 'step-0'),
    });
    const fresh = await runEval({ ...untrained, out: join(dir, 'fresh') });
    expect(fromSnapshot.avgAtK).toBe(fresh.avgAtK);
    expect(fromSnapshot.policyVersion).toBe(fresh.policyVersion);
    expect(again.policyVersion).toBe('sim@3');
  });

  it('reads the test tasks of a run that cut a split of its own, whatever the environment ships', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eval-trained-'));
    const run = join(dir, 'run');
    const training = { env: 'appworld', method: 'grpo', steps: 1, k: 2, batchSize: 2, seed: 2, evalK: 1 };
    await runTrain({ ...training, split: 'dev', concurrency: 2, quiet: true, out: run });
    const config = JSON.parse(await readFile(join(run, 'config.json'), 'utf8')) as { testTasks: string[] };
    const evaluated = await runEval({
      ...evalFlags,
      env: 'appworld',
      checkpoint: run,
      split: 'test',
      k: 1,
      seed: 0,
      out: join(dir, 'e'),
    });
    // AppWorld ships a test split of 18 tasks; the run's test tasks are a fifth of dev's.
    expect(evaluated.split).toMatch(/^test \(dev cut 60\/20\/20/);
    expect(evaluated.perTask.map((task) => task.id).sort()).toEqual([...config.testTasks].sort());
    // A run folder is recorded as the snapshot it resolved to, so a resume reads the same policy.
    const recorded = JSON.parse(await readFile(join(dir, 'e', 'config.json'), 'utf8')) as {
      flags: { checkpoint: string };
    };
    expect(recorded.flags.checkpoint).toBe(join(run, 'checkpoints', 'policy-step-1.json'));
  });

  it('refuses what is no simulated training run, and settings the checkpoint already holds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eval-trained-'));
    const flags = { ...evalFlags, k: 1, seed: 0, out: join(dir, 'out') };
    await expect(runEval({ ...flags, checkpoint: dir })).rejects.toThrow(/no training run here \(no config\.json\)/);
    await expect(runEval({ ...flags, checkpoint: join(dir, 'nothing') })).rejects.toThrow(/no such file or folder/);
    await expect(runEval({ ...flags, checkpoint: dir, simLocality: 1 })).rejects.toThrow(
      /--checkpoint holds the policy's settings/,
    );
    await expect(runEval({ ...flags, checkpoint: dir, policy: 'oracle' })).rejects.toThrow(
      /--checkpoint holds a trained simulated policy; --policy is 'oracle'/,
    );
    // A run of another environment, an evaluation run, a file that is no policy snapshot.
    const run = join(dir, 'run');
    await runTrain({
      env: 'dbbench',
      method: 'grpo',
      steps: 1,
      k: 2,
      batchSize: 2,
      seed: 1,
      evalK: 1,
      concurrency: 2,
      quiet: true,
      out: run,
    });
    await expect(runEval({ ...flags, env: 'appworld', checkpoint: run })).rejects.toThrow(
      /--checkpoint .*run: the run trained on dbbench, not on appworld/,
    );
    // A snapshot copied out of its run folder still names its environment.
    const copied = join(dir, 'copied', 'checkpoints', 'policy-step-1.json');
    await mkdir(join(dir, 'copied', 'checkpoints'), { recursive: true });
    await copyFile(join(run, 'checkpoints', 'policy-step-1.json'), copied);
    await expect(runEval({ ...flags, env: 'appworld', checkpoint: copied })).rejects.toThrow(
      /--checkpoint .*policy-step-1\.json: the policy was trained on dbbench, not on appworld/,
    );
    // A snapshot whose parameters do not read is named.
    const saved = JSON.parse(await readFile(copied, 'utf8'));
    saved.trainer.config.theta['inspect-table'] = 'high';
    await writeFile(copied, JSON.stringify(saved));
    await expect(runEval({ ...flags, checkpoint: copied })).rejects.toThrow(
      /copied\/checkpoints\/policy-step-1\.json: checkpoint trainer state: config\.theta\.inspect-table: /,
    );
    await runEval({ ...flags, limit: 1, out: join(dir, 'evaluated') });
    await expect(runEval({ ...flags, checkpoint: join(dir, 'evaluated') })).rejects.toThrow(
      /evaluated holds a run of 'harness-s eval', not a training run/,
    );
    await expect(runEval({ ...flags, checkpoint: join(run, 'config.json') })).rejects.toThrow(
      /give a training run's folder or one of its policy snapshots/,
    );
  });
});
