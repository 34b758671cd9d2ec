import { defineEnvironmentContract } from '@harness-s/tests';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { createSwegymEnvironment, type SwegymEnvironment } from './environment.js';

// The environment contract again, in Docker containers (two instances of the test split).
if (await dockerTestsEnabled()) {
  defineEnvironmentContract({
    name: 'swegym, Docker sandbox (test split)',
    create: () => createSwegymEnvironment({ sandbox: 'docker', maxIdleSandboxes: 2 }),
    source: { split: 'test' },
    sample: 2,
    resourcesInUse: async (environment) => (environment as SwegymEnvironment).pool.inUse,
    timeoutMs: 600_000,
  });
}
