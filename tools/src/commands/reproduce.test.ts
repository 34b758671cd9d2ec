import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonAtomic } from '@harness-s/core';
import { SimulatedPolicy } from '@harness-s/policy';
import { describe, expect, it } from 'vitest';
import { budgetFor } from '../reproduce/settings.js';
import { runReproduce } from './reproduce.js';

describe('harness-s reproduce, continued in its folder', () => {
  async function startedWith(quick: boolean): Promise<string> {
    const out = await mkdtemp(join(tmpdir(), 'reproduce-continue-'));
    await writeJsonAtomic(join(out, 'config.json'), {
      command: 'reproduce',
      budgets: { dbbench: budgetFor('dbbench', quick) },
      policy: new SimulatedPolicy().describe(),
    });
    return out;
  }

  it('refuses other simulated policy settings than it started with, and leaves the folder as it was', async () => {
    const out = await startedWith(true);
    const before = await readFile(join(out, 'config.json'), 'utf8');
    await expect(
      runReproduce({ out, quick: true, envs: ['dbbench'], concurrency: 1, quiet: true, simLocality: 1 }),
    ).rejects.toThrow(/other simulated policy settings \(.*config\.json\): policy\.localitySpread: 0 then, 1 now/);
    expect(await readFile(join(out, 'config.json'), 'utf8')).toBe(before);
  });

  it('refuses other budgets than it started with', async () => {
    const out = await startedWith(false);
    await expect(runReproduce({ out, quick: true, envs: ['dbbench'], concurrency: 1, quiet: true })).rejects.toThrow(
      /other budgets \(--quick\) \(.*\): budgets\.dbbench\.steps: 12 then, 6 now/,
    );
  });
});
