import { rescuingMethods } from '../compared-runs.js';
import { clearOfZero, type PairedDifference, pairedDifferenceCell } from '../paired-differences.js';
import { pairedColumns, pairedRows } from '../reproduce/paired-table.js';
import { routerArmLabel } from '../reproduce/settings.js';
import { pairedText, poolRescueStudies, studyArmHeadings, studyShapes } from '../rescue-study-summary.js';
import { escapeHtml } from './html.js';
import { methodColor, sortMethods, sortVariants } from './palette.js';
import type { ReportPoolSummary, ReportRecord, RunFolder } from './run-folder.js';
import { mean, percentText, rescueSuccessRates, spread, unique } from './stats.js';

/** A mean over seeds with its spread, in percent. */
function meanContent(values: readonly number[]): string {
  const spreadText = values.length > 1 ? `<span class="pm">± ${percentText(spread(values))}</span>` : '';
  return `<span class="mean">${percentText(mean(values))}</span>${spreadText}`;
}

/** A table cell of a mean over seeds with its spread, in percent. */
function meanCell(values: readonly number[], best = false): string {
  if (values.length === 0) return '<td class="num missing">–</td>';
  return `<td class="num${best ? ' best' : ''}">${meanContent(values)}</td>`;
}

export const methodCell = (method: string) =>
  `<td class="method"><span class="dot" style="--dot:${methodColor(method)}"></span>${escapeHtml(method)}</td>`;

/** A table card: caption, note, headers (from the third on, numbers) and rows. */
export function table(caption: string, note: string, headers: readonly string[], rows: readonly string[]): string {
  return `<div class="table-card"><h3>${escapeHtml(caption)}</h3><p class="table-note">${escapeHtml(note)}</p><table><thead><tr>${headers
    .map((header, index) => `<th${index > 1 ? ' class="num"' : ''}>${escapeHtml(header)}</th>`)
    .join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** Rows of one environment, the first carrying the environment cell across all of them. */
function withEnvironmentCell(env: string, rows: readonly string[]): string[] {
  return rows.map(
    (row, index) =>
      `<tr${index === 0 ? ' class="env-start"' : ''}>${index === 0 ? `<th scope="rowgroup" rowspan="${rows.length}" class="env">${escapeHtml(env)}</th>` : ''}${row}</tr>`,
  );
}

const byEnv = (records: readonly ReportRecord[]) => unique(records.map((record) => record.env));

/** The main table: every method under H0 per environment, mean ± spread over seeds. */
export function mainTable(records: readonly ReportRecord[]): string {
  const main = records.filter((record) => record.variant === 'main');
  if (main.length === 0) return '';
  const k = main[0]?.evalUnderH0.k ?? 3;
  const rows = byEnv(main).flatMap((env) => {
    const ofEnv = main.filter((record) => record.env === env);
    const methods = sortMethods(ofEnv.map((record) => record.method));
    const meanOf = (method: string, pick: (record: ReportRecord) => number) =>
      mean(ofEnv.filter((record) => record.method === method).map(pick));
    const bestPass = Math.max(...methods.map((method) => meanOf(method, (record) => record.evalUnderH0.passAtK)));
    const bestAvg = Math.max(...methods.map((method) => meanOf(method, (record) => record.evalUnderH0.avgAtK)));
    // The initial policy is the same for every method of a seed: one row, one value per seed.
    const initial = new Map<number, { passAtK: number; avgAtK: number }>();
    for (const record of ofEnv) if (record.initialEvalUnderH0) initial.set(record.seed, record.initialEvalUnderH0);
    const cells = [...initial.values()];
    const beforeRow = cells.length
      ? [
          `<td class="method before">before training</td><td class="num">${initial.size}</td>${meanCell(cells.map((value) => value.passAtK))}${meanCell(cells.map((value) => value.avgAtK))}<td class="num missing" colspan="4"></td>`,
        ]
      : [];
    const methodRows = methods.map((method) => {
      const runs = ofEnv.filter((record) => record.method === method);
      const rescues = rescuingMethods.has(method);
      const pass = runs.map((record) => record.evalUnderH0.passAtK);
      const avg = runs.map((record) => record.evalUnderH0.avgAtK);
      return `${methodCell(method)}<td class="num">${runs.length}</td>${meanCell(pass, methods.length > 1 && mean(pass) === bestPass)}${meanCell(avg, methods.length > 1 && mean(avg) === bestAvg)}${meanCell(runs.map((record) => record.effectiveGroupRate))}${meanCell(runs.map((record) => record.effectiveTokenShare))}${meanCell(runs.map((record) => record.rescueTriggerRate))}${rescues ? meanCell(rescueSuccessRates(runs)) : '<td class="num missing">–</td>'}`;
    });
    return withEnvironmentCell(env, [...beforeRow, ...methodRows]);
  });
  return table(
    `Pass@${k} and Avg@${k} under H0 on the test split`,
    `${
      main.length > unique(main.map((record) => `${record.env}|${record.method}`)).length
        ? 'Mean ± sample standard deviation over seeds, in percent. The best method per environment is marked.'
        : 'In percent, one run per method.'
    } Rates over the whole training run: effective groups are retained groups with both a success and a failure (the only ones with a gradient), effective tokens the policy tokens in them as a share of all retained ones, all-failed groups those whose K base attempts all failed (under H0; a mixture’s under its harnesses, so its rate is not comparable; rescued by harness-s and h0-resample, kept as they are by grpo and mixture), rescue success the rescued groups with a success.`,
    [
      'Environment',
      'Method',
      'Seeds',
      `Pass@${k}`,
      `Avg@${k}`,
      'Effective groups',
      'Effective tokens',
      'All-failed groups',
      'Rescue success',
    ],
    rows,
  );
}

/** The router ablations of harness-s: adaptive against fixed profiles, K x 1 against K/2 x 2. */
export function ablationTable(records: readonly ReportRecord[]): string {
  const runs = records.filter((record) => record.method === 'harness-s');
  if (!runs.some((record) => record.variant !== 'main')) return '';
  const k = runs[0]?.evalUnderH0.k ?? 3;
  const rows = byEnv(runs).flatMap((env) =>
    withEnvironmentCell(
      env,
      sortVariants(runs.filter((record) => record.env === env).map((record) => record.variant)).map((variant) => {
        const ofVariant = runs.filter((record) => record.env === env && record.variant === variant);
        return `<td class="method">${escapeHtml(routerArmLabel(variant, ofVariant[0]?.k ?? 0))}</td><td class="num">${ofVariant.length}</td>${meanCell(rescueSuccessRates(ofVariant))}${meanCell(ofVariant.map((record) => record.effectiveGroupRate))}${meanCell(ofVariant.map((record) => record.evalUnderH0.passAtK))}${meanCell(ofVariant.map((record) => record.evalUnderH0.avgAtK))}`;
      }),
    ),
  );
  return table(
    'Router ablations (harness-s)',
    'The same training with the router changed one way at a time.',
    ['Environment', 'Router', 'Seeds', 'Rescue success', 'Effective groups', `Pass@${k}`, `Avg@${k}`],
    rows,
  );
}

/** Rank-1 routing after training, and how often H0 is the router's top choice before and after. */
export function rank1Table(records: readonly ReportRecord[]): string {
  const routed = records.filter((record) => record.variant === 'main' && (record.rank1 || record.h0TopShare));
  if (routed.length === 0) return '';
  const k = routed[0]?.evalUnderH0.k ?? 3;
  // Columns only for what the records hold: Rank-1 results, H0's top share, or both.
  const withRank1 = routed.some((record) => record.rank1);
  const withShares = routed.some((record) => record.h0TopShare);
  const rows = byEnv(routed).flatMap((env) => {
    const runs = routed.filter((record) => record.env === env);
    const rank1 = runs.flatMap((record) => (record.rank1 ? [record.rank1] : []));
    const shares = runs.flatMap((record) => (record.h0TopShare ? [record.h0TopShare] : []));
    const cells = [
      `<td class="num">${runs.length}</td>`,
      ...(withRank1
        ? [
            meanCell(runs.map((record) => (record.rank1H0 ?? record.evalUnderH0).avgAtK)),
            meanCell(rank1.map((value) => value.avgAtK)),
            meanCell(runs.map((record) => (record.rank1H0 ?? record.evalUnderH0).passAtK)),
            meanCell(rank1.map((value) => value.passAtK)),
          ]
        : []),
      ...(withShares
        ? [meanCell(shares.map((value) => value.before)), meanCell(shares.map((value) => value.after))]
        : []),
    ];
    return withEnvironmentCell(env, [cells.join('')]);
  });
  return table(
    withRank1
      ? 'Rank-1 routing after training (harness-s)'
      : "The router's top choice before and after training (harness-s)",
    `${withRank1 ? "Each test task under the router's single top choice, against H0 on the same attempt seeds (an evaluation of its own: other draws than the results table's). " : ''}H0 top: the share of test tasks whose top choice is H0, with profiles anchored before and after training.`,
    [
      'Environment',
      'Seeds',
      ...(withRank1 ? [`H0 Avg@${k}`, `Rank-1 Avg@${k}`, `H0 Pass@${k}`, `Rank-1 Pass@${k}`] : []),
      ...(withShares ? ['H0 top before', 'H0 top after'] : []),
    ],
    rows,
  );
}

/**
 * The rescue studies of the harness-s runs: every way of rescuing on the same all-failed H0 groups,
 * pooled over seeds, before training and at the later steps studied.
 */
export function rescueStudyTable(records: readonly ReportRecord[]): string {
  const studies = poolRescueStudies(records.filter((record) => record.variant === 'main'));
  if (studies.length === 0) return '';
  const m = studies[0]?.variants ?? 2;
  const arms = studyArmHeadings(m);
  const { full, half } = studyShapes(m);
  const rows = unique(studies.map((study) => study.env)).flatMap((env) =>
    withEnvironmentCell(
      env,
      studies
        .filter((study) => study.env === env)
        .map((study) => {
          const best = Math.max(...arms.slice(0, 5).map(([arm]) => study.rates[arm] ?? 0));
          const cells = arms.map(([arm], index) => {
            const value = study.rates[arm];
            if (value === null) return '<td class="num missing">–</td>';
            return `<td class="num${index < 5 && value === best ? ' best' : ''}">${meanContent([value])}</td>`;
          });
          return `<td class="method">${escapeHtml(study.phase === 'before training' ? 'before training' : `steps ${study.steps.join(', ')}`)}</td><td class="num">${study.runs}</td><td class="num">${study.allFailed}</td>${cells.join('')}<td class="num">${escapeHtml(pairedText(study.adaptiveVsFixed))}</td><td class="num">${escapeHtml(pairedText(study.fullVsHalf))}</td>`;
        }),
    ),
  );
  return table(
    'Rescue study (harness-s)',
    `The policy of each run replayed at chosen steps: on the H0 groups that failed every attempt, each way of rescuing is scored on the same attempts, pooled over seeds. Any variant: some variant solved the task in one attempt, the most a ${full} routing could rescue. +a / -b: groups only the first rescued / only the second.`,
    [
      'Environment',
      'Policy',
      'Seeds',
      'All-failed groups',
      ...arms.map(([, heading]) => heading),
      'Adaptive vs fixed',
      `${full} vs ${half}`,
    ],
    rows,
  );
}

/** The trained policies under other harness families, without further training. */
export function familiesTable(records: readonly ReportRecord[]): string {
  const main = records.filter((record) => record.variant === 'main' && record.families);
  const families = unique(main.flatMap((record) => Object.keys(record.families ?? {})));
  if (families.length === 0) return '';
  const k = main[0]?.evalUnderH0.k ?? 3;
  const rows = byEnv(main).flatMap((env) =>
    withEnvironmentCell(
      env,
      sortMethods(main.filter((record) => record.env === env).map((record) => record.method)).map((method) => {
        const runs = main.filter((record) => record.env === env && record.method === method);
        return `${methodCell(method)}${families
          .map((family) =>
            meanCell(runs.flatMap((record) => (record.families?.[family] ? [record.families[family].passAtK] : []))),
          )
          .join('')}`;
      }),
    ),
  );
  return table(
    `Cross-harness evaluation (Pass@${k})`,
    'The policy trained under H0, evaluated under other harness families with no further training. Their draws are those of the Rank-1 table’s H0 column, not of the main table’s evaluation: compare a family with H0 there.',
    ['Environment', 'Method', ...families],
    rows,
  );
}

/** The sibling pools: how much of the validation split H0, the best variant and the pool solve. */
export function poolTable(pools: Readonly<Record<string, ReportPoolSummary>>): string {
  const envs = Object.keys(pools);
  if (envs.length === 0) return '';
  const rows = envs.map((env) => {
    const pool = pools[env] as ReportPoolSummary;
    const cell = (value: number | undefined) =>
      value === undefined ? '<td class="num missing">–</td>' : meanCell([value]);
    return `<tr><th scope="row" class="env">${escapeHtml(env)}</th><td class="num">${pool.poolSize ?? pool.variants.length}</td>${cell(pool.h0Coverage)}<td class="num">${meanContent([pool.bestSingleCoverage])}${pool.bestSingle ? `<span class="pm">${escapeHtml(pool.bestSingle)}</span>` : ''}</td>${cell(pool.jointCoverage)}${cell(pool.jointCoverageWithH0)}</tr>`;
  });
  return table(
    'Sibling pools',
    'Share of validation tasks solved by H0, by the best single variant, by at least one variant, and by H0 or a variant (what rescue can reach).',
    ['Environment', 'Variants', 'H0', 'Best single', 'Joint', 'Joint with H0'],
    rows,
  );
}

/** The comparisons as paired differences over seeds (see `pairedRows`). */
export function pairedTable(records: readonly ReportRecord[]): string {
  const rows = pairedRows(records);
  if (rows.length === 0) return '';
  const k = records[0]?.evalUnderH0.k ?? 3;
  const cell = (difference: PairedDifference | null, seeds: number) => {
    if (difference === null) return '<td class="num missing">–</td>';
    // An interval clear of 0 is marked, above or below: the difference stands beyond the spread between seeds.
    const clear = { 1: ' clear-up', 0: '', [-1]: ' clear-down' }[clearOfZero(difference)];
    return `<td class="num${clear}">${escapeHtml(pairedDifferenceCell(difference, seeds))}</td>`;
  };
  const html = unique(rows.map((row) => row.env)).flatMap((env) =>
    withEnvironmentCell(
      env,
      rows
        .filter((row) => row.env === env)
        .map(
          (row) =>
            `<td class="method">${escapeHtml(row.label)}</td><td class="num">${row.seeds}</td>${row.cells.map((difference) => cell(difference, row.seeds)).join('')}`,
        ),
    ),
  );
  return table(
    'Paired by seed',
    'Mean difference in percentage points with its 95% t interval, over the seeds both sides ran. Marked blue above 0, amber below: an interval that does not span 0, a difference beyond the spread between seeds. "Every pair": the same difference in each pair, with no spread to judge it by, left unmarked.',
    [
      'Environment',
      'Comparison',
      'Seeds',
      ...pairedColumns(k).map((column) => column[0]?.toUpperCase() + column.slice(1)),
    ],
    html,
  );
}

/** Every table the folder has data for, main table first. */
export function tablesSection(folder: RunFolder): string {
  const records = folder.runs.map((run) => run.record);
  return [
    mainTable(records),
    ablationTable(records),
    rank1Table(records),
    pairedTable(records),
    rescueStudyTable(records),
    familiesTable(records),
    poolTable(folder.pools),
  ]
    .filter(Boolean)
    .join('\n');
}
