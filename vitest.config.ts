import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their sources, so no build is needed to test.
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const alias = {
  '@harness-s/core/testing': source('./packages/core/src/testing/index.ts'),
  '@harness-s/core': source('./packages/core/src/index.ts'),
  '@harness-s/harness-dsh': source('./packages/harness-dsh/src/index.ts'),
  '@harness-s/env-dbbench': source('./packages/env-dbbench/src/index.ts'),
  '@harness-s/env-appworld': source('./packages/env-appworld/src/index.ts'),
  '@harness-s/env-swegym': source('./packages/env-swegym/src/index.ts'),
  '@harness-s/router': source('./packages/router/src/index.ts'),
  '@harness-s/policy': source('./packages/policy/src/index.ts'),
  '@harness-s/queue': source('./packages/queue/src/index.ts'),
  '@harness-s/cli': source('./tools/src/index.ts'),
  '@harness-s/tests': source('./tests/src/index.ts'),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'tools/src/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', '**/node_modules/**', '**/dist/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['packages/*/src/**/*.integration.test.ts', 'tests/**/*.integration.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
