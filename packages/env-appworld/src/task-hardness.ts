import type { Task } from '@harness-s/core';

/**
 * How much harder than usual each skill is on an AppWorld task, read from the task's own labels:
 * a scenario's tags name the skills it exercises, and its difficulty says how hard they are there.
 * The simulated policy lowers its logit for a decision point by this much, under every harness
 * and for every training method alike; a real policy ignores it.
 *
 * - `pagination` -> `fetch-all-pages`, `intersection` -> `intersect-not-union`,
 *   `verification` -> `check-after-write`, `account-recovery` -> `finish-account-flow`,
 *   `multi-app` -> `lookup-api-doc` (more unfamiliar APIs).
 * - Difficulty 1: as usual; 2: `hard`; 3: `veryHard`.
 */
export const appworldHardnessLevels = { hard: 2, veryHard: 5 } as const;

/** The skill each scenario tag exercises. */
export const appworldTagSkills: Readonly<Record<string, string>> = {
  pagination: 'fetch-all-pages',
  intersection: 'intersect-not-union',
  verification: 'check-after-write',
  'account-recovery': 'finish-account-flow',
  'multi-app': 'lookup-api-doc',
};

/** Per-skill hardness of an AppWorld task (skills not listed: 0). */
export function appworldHardness(task: Pick<Task, 'tags' | 'difficulty'>): Record<string, number> {
  const level =
    task.difficulty === 3 ? appworldHardnessLevels.veryHard : task.difficulty === 2 ? appworldHardnessLevels.hard : 0;
  if (level === 0) return {};
  const hardness: Record<string, number> = {};
  for (const tag of task.tags ?? []) {
    const skill = appworldTagSkills[tag];
    if (skill) hardness[skill] = level;
  }
  return hardness;
}
