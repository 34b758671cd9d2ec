import { defineEnvironmentContract } from '@harness-s/tests';
import { describe } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { createSwegymEnvironment, type SwegymEnvironment } from './environment.js';

const enabled = await dockerTestsEnabled();

// The environment contract again, in Docker containers (two instances of the test split). Without
// Docker (outside CI) the suite is skipped, with the reason printed, rather than left empty.
describe.skipIf(!enabled)('swegym in Docker', () => {
  defineEnvironmentContract({
    name: 'swegym, Docker sandbox (test split)',
    create: () => createSwegymEnvironment({ sandbox: 'docker', maxIdleSandboxes: 2 }),
    source: { split: 'test' },
    sample: 2,
    resourcesInUse: async (environment) => (environment as SwegymEnvironment).pool.inUse,
    timeoutMs: 600_000,
  });
});
