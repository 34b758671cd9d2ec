import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('refuses a server of another kind at the address, saying so, before writing a run', async () => {
    // A model server: it answers AppWorld's routes with 404s in OpenAI's error shape.
    const model = createServer((_request, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'no such route', type: 'invalid_request_error' } }));
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(model.address() as AddressInfo).port}`;
    const dir = await mkdtemp(join(tmpdir(), 'appworld-elsewhere-'));
    try {
      const common = { env: 'appworld', policy: 'sim', k: 1, seed: 1, concurrency: 1, quiet: true, appworldUrl: [url] };
      const expected = new RegExp(
        `^none of the \\d+ tasks of split dev could be loaded; the first, \\w+: AppWorld server ${url}/tasks/\\w+ answered 404: .* \\(is ${url} an AppWorld environment server, without a path\\?`,
      );
      await expect(runEval({ ...common, harness: 'h0', out: join(dir, 'eval') })).rejects.toThrow(expected);
      expect(existsSync(join(dir, 'eval'))).toBe(false);
      const training = { ...common, method: 'grpo', steps: 1, batchSize: 2, evalK: 1, out: join(dir, 'train') };
      await expect(runTrain(training)).rejects.toThrow(
        /^none of the \d+ tasks of split \w+ could be loaded; .* an AppWorld environment server/,
      );
    } finally {
      await new Promise((resolve) => model.close(resolve));
    }
  });
});
