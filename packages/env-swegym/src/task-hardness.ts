import type { SweTask } from './instance.js';

/**
 * How much harder than usual each skill is on an embedded SWE-Gym instance, read from what its
 * oracle is made of. The simulated policy lowers its logit for a decision point by this much,
 * under every harness and for every training method alike; a real policy ignores it.
 *
 * - `check-diff-before-submit`: reproducing edited a sample data file (a `fixture` leftover).
 *   Unlike a debug print, a changed fixture looks like part of the fix in the diff, so agents
 *   rarely restore it. At level 6, what the skill gains on print instances (where it has no
 *   hardness) does not make fixtures easy within a run: they take what only fixture instances teach.
 */
export const swegymHardnessLevels = { hard: 6 } as const;

/** Per-skill hardness of an instance (skills not listed: 0; real instances: none). */
export function swegymHardness(task: SweTask): Record<string, number> {
  const oracle = task.embedded?.oracle;
  if (!oracle) return {};
  return oracle.debug.kind === 'fixture' ? { 'check-diff-before-submit': swegymHardnessLevels.hard } : {};
}
