import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrajectories } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { formatChoices, runEval } from './eval.js';
import { runProfile } from './profile.js';

describe('eval --routing rank1', () => {
  let dir = '';
  let pool = '';
  let profiles = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'eval-rank1-'));
    pool = join(dir, 'pool');
    profiles = join(dir, 'profiles');
    await writePool(pool);
    await runProfile({
      env: 'dbbench',
      pool,
      out: profiles,
      policy: 'sim',
      k: 4,
      seed: 1,
      concurrency: 4,
      quiet: true,
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs each task under the router's top choice, and says how many tasks went to each harness", async () => {
    const out = join(dir, 'run');
    const printed = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let stdout = '';
    try {
      await runEval({
        env: 'dbbench',
        policy: 'sim',
        harness: 'h0',
        k: 1,
        seed: 1,
        concurrency: 4,
        routing: 'rank1',
        pool,
        profiles,
        quiet: true,
        out,
      });
      stdout = printed.mock.calls.map(([text]) => String(text)).join('');
    } finally {
      printed.mockRestore();
    }
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    const choices = config.routing.choices as Record<string, string>;
    // DBBench's dev split: 60 tasks, one of which cannot be loaded.
    expect(Object.keys(choices)).toHaveLength(59);
    // Every attempt ran under its task's choice.
    const trajectories = await readTrajectories(out);
    expect(trajectories).toHaveLength(59);
    for (const trajectory of trajectories) expect(trajectory.harnessId).toBe(choices[trajectory.taskId]);
    // The profiles favour a variant on some tasks and H0 on others.
    expect(new Set(Object.values(choices)).size).toBeGreaterThan(1);
    const line = formatChoices(choices);
    expect(stdout).toContain(line);
    const counted = [...line.matchAll(/ for (\d+) tasks?/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    expect(counted).toBe(59);
  });

  it('counts the choices, most chosen first', () => {
    expect(formatChoices({ a: 'v-2', b: 'h0', c: 'v-2', d: 'v-1' })).toBe(
      "Rank-1 routing chose: v-2 for 2 tasks, h0 for 1 task, v-1 for 1 task (each task's choice: routing.choices in config.json)",
    );
  });
});
