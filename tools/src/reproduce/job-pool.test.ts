import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJobPool } from './job-pool.js';
import type { ReproduceJob } from './jobs.js';
import { budgetFor } from './settings.js';

describe('the reproduction job pool, one job at a time', () => {
  it('rejects each job with its cause, and after close rejects what was queued instead of running it', async () => {
    const root = join(await mkdtemp(join(tmpdir(), 'job-pool-')), 'no-run');
    const job = (seed: number): ReproduceJob => ({
      env: 'dbbench',
      method: 'grpo',
      variant: 'main',
      seed,
      root,
      budget: budgetFor('dbbench', true),
      concurrency: 1,
      environmentOptions: {},
      sim: {},
    });
    const steps: string[] = [];
    const pool = createJobPool(1, (label) => steps.push(label));
    // The job reads its pool and its initial profiles at once: the error names whichever is missing first.
    const failure = await pool.run(job(1)).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    const inputs = [join(root, 'pools', 'dbbench'), join(root, 'profiles', 'dbbench', 'initial')];
    expect(failure).toBeDefined();
    expect(inputs.some((path) => failure?.includes(path))).toBe(true);

    const queued = pool.run(job(2));
    const closing = pool.close();
    await expect(queued).rejects.toThrow(/closed/);
    await closing;
    expect(steps).toEqual([]);
  });
});
