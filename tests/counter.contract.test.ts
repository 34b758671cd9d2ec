import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { defineEnvironmentContract } from './src/index.js';

// The contract suite checked against the smallest environment there is.
defineEnvironmentContract({
  name: 'counter (test double)',
  create: () => createCounterEnvironment().environment,
  harnesses: () => [createPlainHarness()],
});
