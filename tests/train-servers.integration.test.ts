import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrajectories } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { testServers } from '../packages/env-dbbench/src/__fixtures__/servers.js';
import { runTrain } from '../tools/src/commands/train.js';

const flags = {
  env: 'dbbench',
  method: 'grpo',
  steps: 2,
  batchSize: 3,
  k: 2,
  evalK: 1,
  seed: 1,
  concurrency: 2,
  quiet: true,
};

/** Each recorded attempt's task, role and reward, in order. */
async function outcomes(dir: string) {
  return (await readTrajectories(join(dir, 'trajectories.jsonl'))).map((trajectory) => [
    trajectory.taskId,
    trajectory.training?.role,
    trajectory.evaluation?.reward,
  ]);
}

const base = await mkdtemp(join(tmpdir(), 'train-servers-'));
const embedded = runTrain({ ...flags, out: join(base, 'pglite') });

for (const server of await testServers()) {
  describe.runIf(server.available)(`harness-s train --db on ${server.name}`, () => {
    it('trains on the server with the same outcomes as on the embedded PGlite', async () => {
      const dir = join(base, server.name);
      const summary = await runTrain({ ...flags, db: server.url, out: dir });
      const reference = await embedded;
      expect(summary.evalUnderH0).toEqual(reference.evalUnderH0);
      expect(await outcomes(dir)).toEqual(await outcomes(join(base, 'pglite')));
      expect((await outcomes(dir)).length).toBe(flags.steps * flags.batchSize * flags.k);
    });
  });
}

describe('harness-s train --db', () => {
  it('fails on a server that does not answer, naming it, instead of training elsewhere', async () => {
    await expect(
      runTrain({ ...flags, db: 'postgres://postgres@127.0.0.1:1/test', out: join(base, 'nowhere') }),
    ).rejects.toThrow(/127\.0\.0\.1:1/);
  });
});
