import { escapeHtml } from './html.js';
import { sortMethods } from './palette.js';
import type { ReportRun } from './run-folder.js';
import { methodCell, table } from './tables.js';
import type { TaskOutcomes, TaskScore } from './task-outcomes.js';

const solvedOnce = (score: TaskScore) => score.solved > 0;
const scoreText = (score: TaskScore) => (score.attempts ? `${score.solved} of ${score.attempts}` : 'not scored');
const stepText = (step: number) => (step === 0 ? 'before training' : `after step ${step}`);

/**
 * Which test tasks training unlocked (solved at least once in the last evaluation, never in the
 * first) and which it lost: per run, and for a single run, task by task.
 */
export function testTasksSection(runs: readonly ReportRun[]): string {
  const studied = runs.flatMap((run) =>
    run.outcomes && run.record.variant === 'main' ? [{ record: run.record, outcomes: run.outcomes }] : [],
  );
  if (studied.length === 0) return '';
  // By environment, method (in the tables' order) and seed.
  const methods = sortMethods(studied.map(({ record }) => record.method));
  studied.sort(
    (a, b) =>
      a.record.env.localeCompare(b.record.env) ||
      methods.indexOf(a.record.method) - methods.indexOf(b.record.method) ||
      a.record.seed - b.record.seed,
  );
  const rows = studied.map(({ record, outcomes }) => {
    const count = (pick: (task: TaskOutcomes['tasks'][number]) => boolean) => outcomes.tasks.filter(pick).length;
    const cells = [
      count((task) => solvedOnce(task.before)),
      count((task) => solvedOnce(task.after)),
      count((task) => !solvedOnce(task.before) && solvedOnce(task.after)),
      count((task) => solvedOnce(task.before) && !solvedOnce(task.after)),
    ];
    return `<tr><td>${escapeHtml(record.env)}</td>${methodCell(record.method)}<td class="num">${record.seed}</td><td class="num">${outcomes.firstStep} → ${outcomes.lastStep}</td>${cells
      .map((value, index) => `<td class="num">${index < 2 ? `${value} of ${outcomes.tasks.length}` : value}</td>`)
      .join('')}</tr>`;
  });
  const summary = table(
    'Test tasks solved at least once, first and last evaluation under H0',
    'Steps: the steps the first and last evaluations came after (0: before training). Unlocked: solved in the last evaluation and not in the first; lost: the other way round. From each run’s evals/ folder.',
    ['Environment', 'Method', 'Seed', 'Steps', 'Solved first', 'Solved last', 'Unlocked', 'Lost'],
    rows,
  );
  const only = studied.length === 1 ? studied[0] : undefined;
  if (!only) return summary;
  const { firstStep, lastStep, tasks } = only.outcomes;
  const changed = tasks.filter(
    (task) => task.before.solved / (task.before.attempts || 1) !== task.after.solved / (task.after.attempts || 1),
  );
  const shown = changed.slice(0, 200);
  const detail = table(
    `Test tasks whose solved attempts changed (${changed.length} of ${tasks.length})`,
    `Solved attempts ${stepText(firstStep)} and ${stepText(lastStep)}${changed.length > shown.length ? `; the first ${shown.length} shown` : ''}.`,
    ['Task', stepText(firstStep), stepText(lastStep)],
    shown.map(
      (task) =>
        `<tr><td>${escapeHtml(task.taskId)}</td><td>${scoreText(task.before)}</td><td class="num">${scoreText(task.after)}</td></tr>`,
    ),
  );
  return `${summary}\n${detail}`;
}
