import { runAttempt } from '@harness-s/core';
import { builtInHarnesses, resolveHarness } from '@harness-s/harness-dsh';
import { createOraclePolicy } from '@harness-s/policy';
import { describe, expect, it } from 'vitest';
import { createEnvironment } from './environments.js';
import { familiesOf } from './reproduce/jobs.js';

describe('harness families other than H0', () => {
  it.each([
    ['dbbench', 'dev', ['minimal', 'codeact']],
    ['appworld', 'test', ['minimal']],
    ['swegym', 'test', ['codeact']],
  ])(
    '%s: %s families of their own, under which the oracle solves tasks',
    async (env, split, families) => {
      // The embedded world's families (AppWorld's minimal-python is for the real server's Python tasks).
      expect(familiesOf(await resolveHarness(env, 'h0'))).toEqual(families);
      expect(builtInHarnesses(env).filter((name) => !name.startsWith('h0'))).toEqual(
        env === 'appworld' ? [...families, 'minimal-python'] : families,
      );
      const environment = createEnvironment(env, { actionsFrom: 'plan' });
      try {
        const { tasks } = await environment.loadTasks({ split });
        for (const name of families) {
          const harness = await resolveHarness(env, name);
          // Not a variant of H0: a family of its own.
          expect({ family: harness.spec.family, parent: harness.spec.parent }).toEqual({ family: name, parent: null });
          for (const task of tasks.slice(0, 2)) {
            const trajectory = await runAttempt({
              environment,
              task,
              harness,
              policy: createOraclePolicy(),
              runId: `families-${env}`,
              attempt: 0,
              seed: 1,
            });
            expect(trajectory.evaluation?.success, `${env} ${name} ${task.id}`).toBe(true);
          }
        }
      } finally {
        await environment.close();
      }
    },
    60_000,
  );
});
