import type { HarnessSpec } from '@harness-s/core';
import { builtInHarnesses, builtInHarnessSpec, createHarness } from '@harness-s/harness-dsh';
import { defineEnvironmentContract } from '@harness-s/tests';
import { type AppWorldEnvironment, createAppWorldEnvironment } from './environment.js';
import { SandboxWorkerPool } from './sandbox/worker-pool.js';

const pool = new SandboxWorkerPool();

defineEnvironmentContract<Parameters<AppWorldEnvironment['open']>[0]>({
  name: 'appworld embedded world (dev split)',
  create: () => createAppWorldEnvironment({ pool }),
  // Sandbox worker threads lent to open episodes.
  resourcesInUse: async () => pool.inUse,
  source: { split: 'dev' },
  // Its base harnesses: each codec round-trips the oracle's actions, and the oracle's path fits the smallest step limit among them.
  harnesses: () =>
    builtInHarnesses('appworld').map((name) => createHarness(builtInHarnessSpec('appworld', name) as HarnessSpec)),
  timeoutMs: 300_000,
});
