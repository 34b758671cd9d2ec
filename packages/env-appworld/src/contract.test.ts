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
  timeoutMs: 300_000,
});
