import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonAtomic } from '@harness-s/core';
import { SimulatedPolicy } from '@harness-s/policy';
import { describe, expect, it } from 'vitest';
import { refuseOtherSettings } from '../reproduce/continuation.js';
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

  it('refuses a folder holding a run of another command, saying what it holds', async () => {
    const out = await mkdtemp(join(tmpdir(), 'reproduce-other-'));
    await writeJsonAtomic(join(out, 'config.json'), { command: 'eval', policy: { id: 'sim' } });
    await expect(refuseOtherSettings(out, { budgets: {}, policy: new SimulatedPolicy().describe() })).rejects.toThrow(
      /holds a run of 'harness-s eval', not a reproduction/,
    );
  });

  it('reads a setting its folder predates as the default, so that folder still continues', async () => {
    const out = await startedWith(true);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    delete config.policy.localitySpread;
    await writeJsonAtomic(join(out, 'config.json'), config);
    const budgets = { dbbench: budgetFor('dbbench', true) };
    await expect(
      refuseOtherSettings(out, { budgets, policy: new SimulatedPolicy().describe() }),
    ).resolves.toBeUndefined();
    await expect(
      refuseOtherSettings(out, { budgets, policy: new SimulatedPolicy({ localitySpread: 0.5 }).describe() }),
    ).rejects.toThrow(/policy\.localitySpread: 0 then, 0\.5 now/);
  });

  it('refuses other router settings than it started with; a folder from before them continues either way', async () => {
    const out = await startedWith(true);
    const budgets = { dbbench: budgetFor('dbbench', true) };
    const policy = new SimulatedPolicy().describe();
    // Started before the router's settings were recorded: nothing to compare.
    await expect(
      refuseOtherSettings(out, { budgets, policy, router: { rescueMemory: true } }),
    ).resolves.toBeUndefined();
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    await writeJsonAtomic(join(out, 'config.json'), { ...config, router: { rescueMemory: true } });
    await expect(runReproduce({ out, quick: true, envs: ['dbbench'], concurrency: 1, quiet: true })).rejects.toThrow(
      /other router settings \(--rescue-memory, --failure-ranker\) \(.*\): router\.rescueMemory: true then, false now/,
    );
    // A router setting added later is recorded only when set, so a folder from before it continues.
    await writeJsonAtomic(join(out, 'config.json'), { ...config, router: { rescueMemory: false } });
    await expect(
      refuseOtherSettings(out, { budgets, policy, router: { rescueMemory: false } }),
    ).resolves.toBeUndefined();
    await expect(
      refuseOtherSettings(out, { budgets, policy, router: { rescueMemory: false, failureRanker: 2 } }),
    ).rejects.toThrow(/router\.failureRanker/);
  });

  it('lets a continued run add an environment, and compares the budgets of those both have', async () => {
    const out = await startedWith(true);
    const policy = new SimulatedPolicy().describe();
    await expect(
      refuseOtherSettings(out, { budgets: { swegym: budgetFor('swegym', false) }, policy }),
    ).resolves.toBeUndefined();
    await expect(
      refuseOtherSettings(out, {
        budgets: { dbbench: budgetFor('dbbench', false), swegym: budgetFor('swegym', false) },
        policy,
      }),
    ).rejects.toThrow(/budgets\.dbbench\.steps: 6 then, 12 now/);
  });

  it('refuses other budgets than it started with', async () => {
    const out = await startedWith(false);
    await expect(runReproduce({ out, quick: true, envs: ['dbbench'], concurrency: 1, quiet: true })).rejects.toThrow(
      /other budgets \(--quick\) \(.*\): budgets\.dbbench\.steps: 12 then, 6 now/,
    );
  });

  it('refuses, before any work, rescue-study steps beyond the training', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'reproduce-steps-')), 'out');
    await expect(
      runReproduce({ out, quick: true, envs: ['dbbench'], concurrency: 1, quiet: true, studySteps: [0, 7] }),
    ).rejects.toThrow(/--study-steps: dbbench trains 6 steps, so it has no step 7/);
    expect(existsSync(out)).toBe(false);
  });
});
