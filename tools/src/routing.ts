import { ConfigError, type Harness, type Task } from '@harness-s/core';
import { AdaptiveRouter, readProfiles } from '@harness-s/router';
import { routerRankers } from './llm.js';
import { loadPoolHarnesses } from './pool.js';

/**
 * Rank-1 routing for an evaluation: the router's single top choice per task (which may be H0),
 * from a pool and its behaviour profiles.
 */
export async function rank1Routing(
  env: string,
  h0: Harness,
  tasks: readonly Task[],
  flags: { pool?: string; profiles?: string; llmRanker?: string[] },
  log: (line: string) => void = () => {},
): Promise<{ harnessFor: (task: Task) => Harness; choices: Record<string, string> }> {
  if (!flags.pool || !flags.profiles) {
    throw new ConfigError('--routing rank1 needs --pool DIR and --profiles DIR (see harness-s profile)', {
      code: 'bad-flag',
    });
  }
  const pool = await loadPoolHarnesses(flags.pool, env);
  const profiles = await readProfiles(flags.profiles, { env });
  if (profiles.h0.harnessId !== h0.spec.id) {
    throw new ConfigError(
      `${flags.profiles}: profiles were anchored with base harness ${profiles.h0.harnessId}, not ${h0.spec.id}`,
      {
        code: 'bad-profiles',
      },
    );
  }
  const byId = new Map([h0, ...pool].map((harness) => [harness.spec.id, harness]));
  const router = new AdaptiveRouter({ profiles, mode: 'fixed', rankers: routerRankers(flags.llmRanker, h0, log) });
  const choices: Record<string, string> = {};
  for (const task of tasks) choices[task.id] = await router.topChoice(task, [...byId.keys()]);
  return { harnessFor: (task) => byId.get(choices[task.id] ?? '') ?? h0, choices };
}
