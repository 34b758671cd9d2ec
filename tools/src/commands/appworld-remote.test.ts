import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppWorldServer, createAppWorldEnvironment, startAppWorldServer } from '@harness-s/env-appworld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from './eval.js';
import { runTrain } from './train.js';

const embedded = createAppWorldEnvironment();
let server: AppWorldServer;
beforeAll(async () => {
  server = await startAppWorldServer({ environment: embedded });
});
afterAll(async () => {
  await server.close();
  await embedded.close();
});

describe('--appworld-url', () => {
  it('runs eval and train on an AppWorld environment server, with the numbers of the embedded world', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'appworld-remote-'));
    const flags = {
      env: 'appworld',
      policy: 'sim',
      harness: 'h0',
      k: 2,
      seed: 4,
      concurrency: 1,
      quiet: true,
      limit: 3,
    };
    const remote = await runEval({ ...flags, appworldUrl: [server.url], out: join(dir, 'remote') });
    const local = await runEval({ ...flags, out: join(dir, 'local') });
    expect(remote.tasks).toBe(3);
    expect({ passAtK: remote.passAtK, avgAtK: remote.avgAtK }).toEqual({
      passAtK: local.passAtK,
      avgAtK: local.avgAtK,
    });
    const training = { env: 'appworld', method: 'grpo', steps: 1, batchSize: 2, k: 2, seed: 4, evalK: 1, quiet: true };
    const trained = await runTrain({ ...training, concurrency: 1, appworldUrl: [server.url], out: join(dir, 'train') });
    const here = await runTrain({ ...training, concurrency: 1, out: join(dir, 'train-here') });
    expect(trained.evalUnderH0).toEqual(here.evalUnderH0);
    expect(trained.effectiveGroupRate).toBe(here.effectiveGroupRate);
  });
});
