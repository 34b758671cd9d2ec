import { basename } from 'node:path';
import { clearOfZero, intervalText, pairedDifference, signedPoints, withoutSpread } from '../paired-differences.js';
import { chartsSection } from './charts.js';
import { escapeHtml } from './html.js';
import { sortMethods } from './palette.js';
import type { RunFolder } from './run-folder.js';
import { documentHtml } from './shell.js';
import { mean, percentText, unique } from './stats.js';
import { tablesSection } from './tables.js';
import { testTasksSection } from './test-tasks.js';
import type { PickedGroup } from './trajectory-picker.js';
import { viewerSection } from './viewer.js';

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The run's settings as chips: from the folder's config, completed from the records. */
function settingsChips(folder: RunFolder): string {
  const records = folder.runs.map((run) => run.record);
  const config = folder.config;
  const chips: Array<[string, string]> = [];
  const list = (value: unknown, fallback: Array<string | number>) =>
    (Array.isArray(value) && value.length ? value : fallback).join(', ');
  chips.push(['Environments', list(config['envs'], unique(records.map((record) => record.env)))]);
  chips.push(['Methods', list(config['methods'], sortMethods(records.map((record) => record.method)))]);
  chips.push([
    'Seeds',
    list(
      config['seeds'],
      unique(records.map((record) => record.seed)).sort((a, b) => a - b),
    ),
  ]);
  const budgets = asRecord(config['budgets']);
  for (const env of unique(records.map((record) => record.env))) {
    const budget = asRecord(budgets[env]);
    const record = records.find((candidate) => candidate.env === env);
    const steps = budget['steps'] ?? record?.steps;
    const k = budget['k'] ?? record?.k;
    const batch = budget['batchSize'] ?? asRecord(config['config'])['batchSize'];
    const evalK = budget['evalK'] ?? record?.evalUnderH0.k;
    chips.push([
      env,
      `${steps} steps${batch ? ` × ${batch} tasks` : ''} × K=${k}, evaluated with k=${evalK}${budget['evalEvery'] ? ` every ${budget['evalEvery']} steps` : ''}`,
    ]);
  }
  if (config['quick'] !== undefined) chips.push(['Size', config['quick'] ? 'quick' : 'full']);
  const policy = asRecord(config['policy']);
  if (policy['id'] ?? policy['kind']) chips.push(['Policy', String(policy['id'] ?? policy['kind'])]);
  return `<ul class="chips">${chips.map(([label, value]) => `<li><b>${escapeHtml(label)}</b>${escapeHtml(value)}</li>`).join('')}</ul>`;
}

/**
 * Per environment: how harness-s compares with plain GRPO, the paper's headline, as a mean
 * difference paired by seed with its 95% t interval. Coloured up or down only when the interval
 * stands clear of 0; within the spread between seeds it reads as even.
 */
function headlines(folder: RunFolder): string {
  const main = folder.runs.map((run) => run.record).filter((record) => record.variant === 'main');
  const cards = unique(main.map((record) => record.env)).flatMap((env) => {
    const of = (method: string) => main.filter((record) => record.env === env && record.method === method);
    const ours = of('harness-s');
    const baseline = of('grpo');
    if (ours.length === 0 || baseline.length === 0) return [];
    const k = ours[0]?.evalUnderH0.k ?? 3;
    type Pick = (record: (typeof main)[number]) => number;
    // Runs of the same seed, and only those: the means and the difference are of the same pairs.
    const pairs = ours.flatMap((record) => {
      const partner = baseline.find((other) => other.seed === record.seed);
      return partner ? [[record, partner] as const] : [];
    });
    const unpaired = Math.max(ours.length, baseline.length) - pairs.length;
    const card = (label: string, pick: Pick) => {
      const difference = pairedDifference(pairs.map(([run, partner]) => pick(run) - pick(partner)));
      if (difference.pairs === 0) return '';
      const side = clearOfZero(difference);
      const spread = !difference.interval
        ? '1 seed: no interval'
        : withoutSpread(difference)
          ? `the same in each of ${difference.pairs} seeds: no spread to judge it by`
          : `95% interval ${intervalText(difference.interval)} over ${difference.pairs} seeds${side === 0 ? ', within the spread between seeds' : ''}`;
      const means = `${percentText(mean(pairs.map(([run]) => pick(run))))}% vs ${percentText(mean(pairs.map(([, partner]) => pick(partner))))}%${unpaired > 0 ? ` (the seeds both ran; ${unpaired} run${unpaired > 1 ? 's' : ''} without a pair left out)` : ''}`;
      return `<div class="headline"><div class="label">${escapeHtml(label)}</div><div class="value"><span class="${side > 0 ? 'up' : side < 0 ? 'down' : 'even'}">${escapeHtml(signedPoints(difference.mean).replace('-', '−'))}</span> <small>points</small></div><div class="sub">${escapeHtml(`${means}; ${spread}`)}</div></div>`;
    };
    return [
      card(`${env}: Avg@${k} under H0, harness-s vs grpo`, (record) => record.evalUnderH0.avgAtK),
      card(`${env}: effective-group rate, harness-s vs grpo`, (record) => record.effectiveGroupRate),
    ].filter(Boolean);
  });
  return cards.length ? `<div class="headlines">${cards.join('')}</div>` : '';
}

export interface PageOptions {
  /** When the report was made (ISO text); fixed in tests. */
  generatedAt?: string;
}

/** The whole report as one HTML document with inline style, script and SVG. */
export function renderPage(folder: RunFolder, groups: readonly PickedGroup[], options: PageOptions = {}): string {
  const command = String(folder.config['command'] ?? 'reproduce');
  const title = command === 'train' ? 'Harness-S training report' : 'Harness-S reproduction report';
  const created =
    typeof folder.config['createdAt'] === 'string'
      ? ` · started ${folder.config['createdAt'].slice(0, 16).replace('T', ' ')}`
      : '';
  const warnings = folder.warnings.length
    ? `<details class="warnings"><summary>${folder.warnings.length} part${folder.warnings.length > 1 ? 's' : ''} of the folder could not be read</summary><pre>${escapeHtml(folder.warnings.join('\n'))}</pre></details>`
    : '';
  const tasks = testTasksSection(folder.runs);
  return documentHtml(
    `${title}: ${basename(folder.dir)}`,
    `<header class="top"><div class="wrap">
<h1>${escapeHtml(title)}</h1>
<p class="subtitle">${escapeHtml(basename(folder.dir))}${escapeHtml(created)} · ${folder.runs.length} training run${folder.runs.length === 1 ? '' : 's'} · every evaluation under the base harness H0</p>
${settingsChips(folder)}
</div></header>
<nav class="sections"><div class="wrap"><a href="#results">Results</a><a href="#curves">Training curves</a>${tasks ? '<a href="#test-tasks">Test tasks</a>' : ''}<a href="#trajectories">Trajectories</a></div></nav>
<main class="wrap">
${headlines(folder)}
<section id="results"><h2>Results</h2>${tablesSection(folder)}</section>
<section id="curves"><h2>Training curves</h2><p class="section-note">Shaded bands are ± one standard deviation over seeds; hover a point for its value.</p>${chartsSection(folder)}</section>
${tasks ? `<section id="test-tasks"><h2>Test tasks</h2>${tasks}</section>\n` : ''}<section id="trajectories"><h2>Trajectories: rescue side by side</h2>${viewerSection(groups)}</section>
<footer>Generated ${escapeHtml(options.generatedAt ?? new Date().toISOString())} by <code>harness-s report</code> from <code>${escapeHtml(basename(folder.dir))}</code>.${warnings}</footer>
</main>`,
  );
}
