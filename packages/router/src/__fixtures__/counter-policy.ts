import type { Harness, Policy, Task } from '@harness-s/core';
import { callTool, createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { buildProfiles, type ProfileSet } from '../profiles.js';
import type { Diagnose } from '../signatures.js';

/**
 * A policy for the counter environment that sets the counter right (count-N: N) exactly where
 * `solves(N, harnessId)` says so, and to 0 elsewhere, then submits.
 */
export function counterPolicy(version: string, solves: (target: number, harnessId: string) => boolean): Policy {
  return {
    id: 'test',
    version,
    needsPlan: false,
    describe: () => ({}),
    startEpisode(context) {
      const target = Number(context.task.id.split('-')[1]);
      const right = solves(target, context.harness.spec.id);
      let turn = 0;
      return {
        async respond() {
          turn += 1;
          return {
            message: turn === 1 ? callTool('add', { n: right ? target : 0 }) : callTool('submit'),
            usage: { promptTokens: 1, completionTokens: 1 },
          };
        },
      };
    },
  };
}

/**
 * Profiles of `pool` anchored on the counter environment's tasks (count-1 to count-3) under
 * `policy`, two paired attempts per task; `diagnose`, when given, records how H0 failed.
 */
export async function profileCounter(
  policy: Policy,
  pool: readonly Harness[],
  diagnose?: Diagnose,
): Promise<{ profiles: ProfileSet; tasks: Task[] }> {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const profiles = await buildProfiles({
    environment,
    tasks,
    h0: createPlainHarness(),
    pool: [...pool],
    policy,
    k: 2,
    seed: 1,
    concurrency: 2,
    ...(diagnose ? { diagnose } : {}),
  });
  return { profiles, tasks };
}
