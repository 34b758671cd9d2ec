import type { HarnessSpec } from '@harness-s/core';
import { builtInHarnesses, builtInHarnessSpec, createHarness } from '@harness-s/harness-dsh';
import { defineEnvironmentContract } from '@harness-s/tests';
import { createSwegymEnvironment, type SwegymEnvironment } from './environment.js';

// Two instances of the test split, one JavaScript and one Python, keep the suite short; every
// embedded instance is validated in embedded-validation.integration.test.ts and by `harness-s eval`.
defineEnvironmentContract({
  name: 'swegym, local sandbox (test split)',
  create: () => createSwegymEnvironment({ sandbox: 'local', actionsFrom: 'plan' }),
  source: { split: 'test' },
  sample: 2,
  resourcesInUse: async (environment) => (environment as SwegymEnvironment).pool.inUse,
  // Its base harnesses: each codec round-trips the oracle's actions, and the oracle's path fits the smallest step limit among them.
  harnesses: () =>
    builtInHarnesses('swegym').map((name) => createHarness(builtInHarnessSpec('swegym', name) as HarnessSpec)),
  timeoutMs: 300_000,
});
