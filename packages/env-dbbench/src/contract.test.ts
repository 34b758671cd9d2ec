import type { HarnessSpec } from '@harness-s/core';
import { builtInHarnesses, builtInHarnessSpec, createHarness } from '@harness-s/harness-dsh';
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
  // Its base harnesses: each codec round-trips the oracle's actions, and the oracle's path fits the smallest
  // step limit among them. Not h0-text: AgentBench's text protocol decodes a final answer to the raw `answer_text` the
  // environment parses, not to the oracle's `answers` (harness-dsh tests that codec).
  harnesses: () =>
    builtInHarnesses('dbbench')
      .filter((name) => name !== 'h0-text')
      .map((name) => createHarness(builtInHarnessSpec('dbbench', name) as HarnessSpec)),
  timeoutMs: 180_000,
});
