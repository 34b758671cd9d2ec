import { formatPercent, isScored, type Trajectory } from '@harness-s/core';
import type { AppWorldTask } from './tasks/types.js';

/**
 * AppWorld's metrics over an evaluation with k attempts per task. TGC (task goal completion) is
 * the share of tasks solved; SGC (scenario goal completion) the share of scenarios whose every
 * task was solved. AppWorld defines them for one run; with k attempts, attempt i of every task
 * forms run i, and the metrics are averaged over the runs. `sgcAnyAttempt` counts a scenario when
 * each of its tasks was solved in at least one attempt.
 */
export interface GoalCompletion {
  tgc: number;
  sgc: number;
  sgcAnyAttempt: number;
  scenarios: number;
  runs: number;
}

export function goalCompletion(trajectories: readonly Trajectory[], tasks: readonly AppWorldTask[]): GoalCompletion {
  const scenarioOf = new Map(tasks.map((task) => [task.id, task.scenarioId]));
  const scenarios = new Set(tasks.map((task) => task.scenarioId));
  const runs = new Map<number, Map<string, boolean>>();
  for (const trajectory of trajectories) {
    if (!isScored(trajectory) || !scenarioOf.has(trajectory.taskId)) continue;
    let run = runs.get(trajectory.attempt);
    if (!run) {
      run = new Map();
      runs.set(trajectory.attempt, run);
    }
    run.set(trajectory.taskId, trajectory.evaluation.success);
  }
  const scenarioSolved = (solved: (taskId: string) => boolean): number =>
    [...scenarios].filter((scenario) =>
      tasks.filter((task) => task.scenarioId === scenario).every((task) => solved(task.id)),
    ).length;
  let tgc = 0;
  let sgc = 0;
  for (const run of runs.values()) {
    tgc += [...run.values()].filter(Boolean).length / Math.max(1, run.size);
    sgc += scenarioSolved((taskId) => run.get(taskId) === true) / Math.max(1, scenarios.size);
  }
  const anyAttempt = (taskId: string) => [...runs.values()].some((run) => run.get(taskId) === true);
  return {
    tgc: runs.size ? tgc / runs.size : 0,
    sgc: runs.size ? sgc / runs.size : 0,
    sgcAnyAttempt: scenarios.size ? scenarioSolved(anyAttempt) / scenarios.size : 0,
    scenarios: scenarios.size,
    runs: runs.size,
  };
}

/** What `harness-s eval` prints of `summary.appworld` (see `Environment.summaryLines`). */
export function goalCompletionLines(summary: Readonly<Record<string, unknown>>): string[] {
  const metrics = summary['appworld'] as Partial<GoalCompletion> | undefined;
  if (typeof metrics?.tgc !== 'number' || typeof metrics.sgc !== 'number') return [];
  const runs = metrics.runs ?? 0;
  return [
    `AppWorld TGC ${formatPercent(metrics.tgc)} | SGC ${formatPercent(metrics.sgc)} (mean over ${runs} attempt run${runs === 1 ? '' : 's'}` +
      (typeof metrics.sgcAnyAttempt === 'number'
        ? `; SGC with any attempt ${formatPercent(metrics.sgcAnyAttempt)})`
        : ')'),
  ];
}
