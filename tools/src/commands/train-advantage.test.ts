import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStepMetrics, readTrajectories } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { cli } from '../__fixtures__/cli.js';

describe('train: how advantages are computed', () => {
  it('takes the deviation, epsilon and what to do with groups without spread from flags, records and keeps them', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'train-advantage-')), 'run');
    const base = ['train', '--env', 'appworld', '--method', 'grpo', '--k', '3', '--batch-size', '4', '--eval-k', '1'];
    const settings = ['--advantage-std', 'sample', '--advantage-epsilon', '0.5', '--zero-variance', 'drop'];
    await cli([...base, '--steps', '2', '--skip-initial-eval', ...settings, '--quiet', '--out', out]);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(config.config.advantage).toEqual({ std: 'sample', epsilon: 0.5, zeroVariance: 'drop' });

    const groups = new Map<string, Array<{ reward: number; advantage?: number; dropped?: boolean }>>();
    for (const { evaluation, training } of await readTrajectories(out)) {
      if (!training || !evaluation) continue;
      const group = groups.get(training.groupId) ?? [];
      groups.set(training.groupId, group);
      group.push({
        reward: evaluation.reward,
        ...(training.advantage !== undefined ? { advantage: training.advantage } : {}),
        ...(training.dropped ? { dropped: true } : {}),
      });
    }
    let flat = 0;
    for (const group of groups.values()) {
      const rewards = group.map((attempt) => attempt.reward);
      if (rewards.every((reward) => reward === rewards[0])) {
        flat += 1;
        expect(group.every((attempt) => attempt.dropped && attempt.advantage === undefined)).toBe(true);
        continue;
      }
      const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
      const sample = Math.sqrt(rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / (rewards.length - 1));
      for (const attempt of group) expect(attempt.advantage).toBeCloseTo((attempt.reward - mean) / (sample + 0.5), 12);
    }
    expect(flat).toBeGreaterThan(0);
    const metrics = await readStepMetrics(out);
    expect(metrics.reduce((sum, step) => sum + step.droppedGroups, 0)).toBe(flat);

    // They are what the run is: a resume keeps them, and refuses another.
    await expect(cli(['train', '--resume', out, '--zero-variance', 'keep'])).rejects.toThrow(/--zero-variance/);
  });
});
