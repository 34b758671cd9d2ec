import { defineEnvironmentContract } from '@harness-s/tests';
import { createDbbenchEnvironment } from './environment.js';
import { createPgliteBackend } from './pglite-backend.js';

defineEnvironmentContract({
  name: 'dbbench on PGlite (dev split)',
  // Two engines, so two episodes can be open at once.
  create: () => createDbbenchEnvironment({ backend: createPgliteBackend({ poolSize: 2 }) }),
  source: { split: 'dev' },
  timeoutMs: 180_000,
});
