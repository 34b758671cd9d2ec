import type { RepairDirection } from '../variants/operators.js';
import type { FailureAnalysis } from './causes.js';

/**
 * Groups the causes of failed trajectories into repair directions, most widespread first (by the
 * number of distinct failed tasks that show each, then by name).
 */
export function groupIntoDirections(analyses: readonly FailureAnalysis[]): RepairDirection[] {
  const byName = new Map<string, { skills: Set<string>; causes: Set<string>; tasks: Set<string> }>();
  for (const analysis of analyses) {
    for (const cause of analysis.causes) {
      const entry = byName.get(cause.direction) ?? { skills: new Set(), causes: new Set(), tasks: new Set() };
      if (cause.skill) entry.skills.add(cause.skill);
      entry.causes.add(cause.kind);
      entry.tasks.add(analysis.taskId);
      byName.set(cause.direction, entry);
    }
  }
  return [...byName.entries()]
    .map(([name, entry]) => ({
      name,
      skills: [...entry.skills].sort(),
      causes: [...entry.causes].sort(),
      tasks: [...entry.tasks].sort(),
    }))
    .sort((a, b) => b.tasks.length - a.tasks.length || a.name.localeCompare(b.name));
}
