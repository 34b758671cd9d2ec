import { defineEnvironmentContract } from '@harness-s/tests';
import { describe } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';

for (const server of await testServers()) {
  describe.skipIf(!server.available)(`${server.name} server`, () => {
    let backend: DbbenchBackend | undefined;
    defineEnvironmentContract({
      name: `dbbench on ${server.name} (dev split)`,
      create: () => {
        backend = createBackendFromUrl(server.url);
        return createDbbenchEnvironment({ backend });
      },
      source: { split: 'dev' },
      resourcesInUse: async () => backend?.sessionsInUse() ?? 0,
      timeoutMs: 120_000,
    });
  });
}
