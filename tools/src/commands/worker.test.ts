import { InfrastructureError } from '@harness-s/core';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';
import { runTrain } from './train.js';
import { runWorker } from './worker.js';

const workerFlags = {
  env: 'dbbench',
  concurrency: 1,
  lockDuration: 30_000,
  stalledInterval: 30_000,
  maxStalled: 1,
  grace: 1000,
  heartbeat: 0,
  quiet: true,
};

describe('harness-s worker and train --redis', () => {
  it('needs --redis and names a bad value', async () => {
    let output = '';
    const program = createProgram();
    for (const command of [program, ...program.commands]) {
      command.exitOverride().configureOutput({ writeErr: (text) => (output += text), writeOut: () => undefined });
    }
    await expect(program.parseAsync(['node', 'harness-s', 'worker'])).rejects.toBeInstanceOf(CommanderError);
    expect(output).toMatch(/required option '--redis <url>' not specified/);
    await expect(
      program.parseAsync(['node', 'harness-s', 'worker', '--redis', 'redis://x', '--max-stalled', '-1']),
    ).rejects.toBeInstanceOf(CommanderError);
    expect(output).toMatch(/--max-stalled must be an integer >= 0/);
  });

  it('stops at once with an infrastructure error when Redis cannot be reached', async () => {
    // Port 9 (discard) is closed on loopback: the connection is refused at once.
    const failure = runWorker({ ...workerFlags, redis: 'redis://127.0.0.1:9' });
    await expect(failure).rejects.toSatisfy(InfrastructureError.isInstance);
    await expect(failure).rejects.toThrow(/cannot reach Redis at redis:\/\/127\.0\.0\.1:9/);
    await expect(runWorker({ ...workerFlags, redis: 'http://127.0.0.1:6379' })).rejects.toThrow(
      /redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it('refuses a --redis that is not a Redis URL before training', async () => {
    await expect(
      runTrain({
        env: 'dbbench',
        method: 'grpo',
        steps: 1,
        k: 1,
        seed: 0,
        batchSize: 1,
        evalK: 1,
        concurrency: 1,
        redis: 'localhost:6379',
        quiet: true,
      }),
    ).rejects.toThrow(/--redis must be a redis:\/\/ or rediss:\/\/ URL/);
  });
});
