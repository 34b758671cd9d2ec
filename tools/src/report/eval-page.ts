import { basename } from 'node:path';
import { type EvalSummary, hasScoredTask, type Trajectory } from '@harness-s/core';
import { escapeHtml } from './html.js';
import { percentText } from './stats.js';

const percent = (fraction: number) => `${percentText(fraction)}%`;

import { documentHtml } from './shell.js';
import { attemptHtml } from './viewer.js';

/** Tasks the trajectory section shows at most; the telling ones first. */
const shownTasks = 30;

const card = (label: string, value: string, sub: string) =>
  `<div class="headline"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div><div class="sub">${escapeHtml(sub)}</div></div>`;

function table(caption: string, headers: readonly string[], rows: readonly string[][]): string {
  return `<div class="table-card"><h3>${escapeHtml(caption)}</h3><table><thead><tr>${headers
    .map((header, index) => `<th${index > 0 ? ' class="num"' : ''}>${escapeHtml(header)}</th>`)
    .join('')}</tr></thead><tbody>${rows
    .map(
      (row) =>
        `<tr>${row.map((cell, index) => `<td${index > 0 ? ' class="num"' : ''}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('')}</tbody></table></div>`;
}

/** One task's attempts side by side, collapsed to a line that says how it went. */
function taskHtml(taskId: string, attempts: readonly Trajectory[]): string {
  const solved = attempts.filter((attempt) => attempt.evaluation?.success).length;
  const text = attempts[0]?.messages.find((message) => message.role === 'user')?.content ?? '';
  const firstSolved = Math.max(
    0,
    attempts.findIndex((attempt) => attempt.evaluation?.success),
  );
  return `<details class="group" data-group="${escapeHtml(taskId)}">
<summary><span class="group-task">${escapeHtml(taskId)}</span><span class="group-outcome">${solved}/${attempts.length} solved</span><span class="group-meta">${escapeHtml(attempts[0]?.harnessId ?? '')}</span><span class="group-text">${escapeHtml(text.split('\n')[0]?.slice(0, 160) ?? '')}</span></summary>
<div class="group-body"><div class="toolbar"><button type="button" data-attempts="open">Open all attempts</button><button type="button" data-attempts="close">Close all</button></div>
<div class="columns"><div class="lane base"><h4>${attempts.length} attempt${attempts.length === 1 ? '' : 's'}</h4><div class="lane-columns">${attempts
    .map((attempt, index) => attemptHtml(attempt, index === firstSolved, undefined))
    .join('')}</div></div></div></div>
</details>`;
}

/** The tasks to show: mixed outcomes first (what separates success from failure), then failures. */
function telling(summary: EvalSummary, trajectories: readonly Trajectory[]): string {
  const byTask = new Map<string, Trajectory[]>();
  for (const trajectory of [...trajectories].sort((a, b) => a.attempt - b.attempt)) {
    byTask.set(trajectory.taskId, [...(byTask.get(trajectory.taskId) ?? []), trajectory]);
  }
  const rank = (id: string) => {
    const result = summary.perTask.find((task) => task.id === id);
    if (!result || result.attempts === 0) return 3;
    if (result.successes === 0) return 1;
    return result.successes < result.attempts ? 0 : 2;
  };
  const ids = [...byTask.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  if (ids.length === 0) return '<p class="empty-note">No trajectories in this run folder.</p>';
  const note = `Tasks with both solved and failed attempts first, then tasks never solved, then the rest${ids.length > shownTasks ? `; the first ${shownTasks} of ${ids.length}` : ''}. Open a task to read its attempts side by side.`;
  return `<p class="section-note">${escapeHtml(note)}</p>${ids
    .slice(0, shownTasks)
    .map((id) => taskHtml(id, byTask.get(id) ?? []))
    .join('\n')}`;
}

/** The report of an evaluation run (`harness-s eval`) as one self-contained HTML document. */
export function renderEvalPage(
  dir: string,
  summary: EvalSummary,
  trajectories: readonly Trajectory[],
  options: { generatedAt?: string } = {},
): string {
  const k = summary.k;
  const title = 'Harness-S evaluation report';
  const chips: Array<[string, string]> = [
    ['Environment', `${summary.env}/${summary.split}`],
    ['Policy', `${summary.policy} (${summary.policyVersion})`],
    ['Harness', summary.harness],
    ['Attempts', summary.attempts ? `${summary.attempts} per task, Pass@${k} from all` : `k = ${k} per task`],
    ['Seed', String(summary.seed)],
  ];
  const categories = Object.entries(summary.perCategory).sort(([a], [b]) => a.localeCompare(b));
  // No rate where no task has a scored attempt (every try an infrastructure error).
  const rate = (value: number, category?: string) => (hasScoredTask(summary, category) ? percent(value) : '–');
  const unscored = summary.unscoredTasks.length;
  const categoryRows = [
    ...(categories.length === 1 && categories[0]?.[0] === 'all' ? [] : categories).map(([category, rates]) => [
      category === 'all' ? '(none)' : category,
      String(rates.tasks),
      rate(rates.passAtK, category),
      rate(rates.avgAtK, category),
    ]),
    ['all', String(summary.tasks), rate(summary.passAtK), rate(summary.avgAtK)],
  ];
  const stops = Object.entries(summary.stopReasons).map(([reason, count]) => [reason, String(count)]);
  const unloadable = summary.unloadable.length
    ? `<details class="warnings"><summary>${summary.unloadable.length} task${summary.unloadable.length === 1 ? '' : 's'} could not be loaded</summary><pre>${escapeHtml(summary.unloadable.map((task) => `${task.id}: ${task.reason}`).join('\n'))}</pre></details>`
    : '';
  return documentHtml(
    `${title}: ${basename(dir)}`,
    `<header class="top"><div class="wrap">
<h1>${escapeHtml(title)}</h1>
<p class="subtitle">${escapeHtml(basename(dir))} · ${summary.tasks} tasks${summary.unloadable.length ? ` (${summary.unloadable.length} more could not be loaded)` : ''} · ${trajectories.length} attempts</p>
<ul class="chips">${chips.map(([label, value]) => `<li><b>${escapeHtml(label)}</b>${escapeHtml(value)}</li>`).join('')}</ul>
</div></header>
<nav class="sections"><div class="wrap"><a href="#results">Results</a><a href="#trajectories">Trajectories</a></div></nav>
<main class="wrap">
<div class="headlines">${card(`Pass@${k}`, rate(summary.passAtK), 'unbiased estimate, mean over tasks')}${card(`Avg@${k}`, rate(summary.avgAtK), 'mean success over attempts')}${card('Solved', `${summary.solved} / ${summary.tasks - unscored}`, `tasks solved at least once${unscored ? `; ${unscored} with no scored attempt (infrastructure errors), left out` : ''}${summary.unloadable.length ? `; ${summary.unloadable.length} not loadable, not counted` : ''}`)}</div>
<section id="results"><h2>Results</h2>
${table('By category', ['category', 'tasks', `Pass@${k}`, `Avg@${k}`], categoryRows)}
${table('How attempts ended', ['stop reason', 'attempts'], stops)}
${table(
  'Infrastructure',
  ['what', 'count'],
  [
    ['errors met (each retried)', String(summary.infraErrors)],
    ['attempts never scored', String(summary.unscoredAttempts)],
  ],
)}
${unloadable}</section>
<section id="trajectories"><h2>Trajectories</h2>${telling(summary, trajectories)}</section>
<footer>Generated ${escapeHtml(options.generatedAt ?? new Date().toISOString())} by <code>harness-s report</code> from <code>${escapeHtml(basename(dir))}</code>.</footer>
</main>`,
  );
}
