import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { runTrain } from './train.js';

/** Attempts per validation task of H0's profile, as the run's last checkpoint keeps the router's profiles. */
async function profileAttempts(run: string): Promise<number[]> {
  const checkpoint = JSON.parse(await readFile(join(run, 'checkpoints', 'latest.json'), 'utf8')) as {
    router: { profiles: { h0: { outcomes: Record<string, { attempts: number }> } } };
  };
  return [...new Set(Object.values(checkpoint.router.profiles.h0.outcomes).map((outcome) => outcome.attempts))];
}

describe('train --profile-k', () => {
  it('sets the attempts per validation task and harness of the router’s profiles (2 by default)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'train-profile-k-'));
    const pool = join(dir, 'pool');
    await mkdir(pool);
    await writePool(pool);
    const flags = { env: 'dbbench', method: 'harness-s', steps: 1, k: 2, seed: 1, batchSize: 2, pool, evalK: 1 };
    await runTrain({ ...flags, concurrency: 4, quiet: true, out: join(dir, 'default') });
    await runTrain({ ...flags, profileK: 5, concurrency: 4, quiet: true, out: join(dir, 'five') });
    expect(await profileAttempts(join(dir, 'default'))).toEqual([2]);
    expect(await profileAttempts(join(dir, 'five'))).toEqual([5]);
  });
});
