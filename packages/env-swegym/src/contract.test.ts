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
  timeoutMs: 300_000,
});
