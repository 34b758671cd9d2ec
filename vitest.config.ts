import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their sources, so no build is needed to test: every
// workspace package's exports with a `source` condition become aliases, the longest specifiers
// first (`@harness-s/core/testing` before `@harness-s/core`, which would otherwise take it as a path).
const root = fileURLToPath(new URL('.', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const workspaceDirs = (readJson('package.json').workspaces as string[]).flatMap((pattern) =>
  pattern.endsWith('/*')
    ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
        .filter(
          (entry) => entry.isDirectory() && existsSync(join(root, pattern.slice(0, -2), entry.name, 'package.json')),
        )
        .map((entry) => join(pattern.slice(0, -2), entry.name))
    : [pattern],
);
const alias = Object.fromEntries(
  workspaceDirs
    .flatMap((dir) => {
      const { name, exports } = readJson(join(dir, 'package.json')) as {
        name: string;
        exports?: Record<string, { source?: string }>;
      };
      return Object.entries(exports ?? {}).flatMap(([subpath, conditions]) =>
        conditions.source ? [[join(name, subpath), join(root, dir, conditions.source)] as const] : [],
      );
    })
    .sort(([a], [b]) => b.length - a.length),
);

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
