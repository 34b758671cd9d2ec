import { defineEnvironmentContract } from '@harness-s/tests';
import type { DbbenchBackend } from './backend.js';
import { createDbbenchEnvironment } from './environment.js';
import { createPgliteBackend } from './pglite-backend.js';

let backend: DbbenchBackend | undefined;

defineEnvironmentContract({
  name: 'dbbench on PGlite (dev split)',
  create: () => {
    // Two engines, so two episodes can be open at once.
    backend = createPgliteBackend({ poolSize: 2 });
    return createDbbenchEnvironment({ backend });
  },
  source: { split: 'dev' },
  resourcesInUse: async () => backend?.sessionsInUse() ?? 0,
  timeoutMs: 180_000,
});
