import { countOf } from '@harness-s/core';
import { rescuingMethods } from '../compared-runs.js';
import { routerArmLabel } from '../reproduce/settings.js';
import { escapeHtml, slug } from './html.js';
import { harnessColor, methodColor, sortMethods, sortVariants, variantColor } from './palette.js';
import type { ReportProfiles, ReportRun, RunFolder } from './run-folder.js';
import { mean, meanCurve, unique } from './stats.js';
import {
  type DivergingRow,
  divergingBarChart,
  emptyChart,
  type LineSeries,
  lineChart,
  type Stack,
  stackedBarChart,
} from './svg-charts.js';

/** One line per method of the main comparison, from a per-run step series. */
function methodSeries(
  runs: readonly ReportRun[],
  pick: (run: ReportRun) => Array<{ x: number; y: number | null | undefined }>,
): LineSeries[] {
  const main = runs.filter((run) => run.record.variant === 'main');
  return sortMethods(main.map((run) => run.record.method)).map((method) => ({
    label: method,
    color: methodColor(method),
    points: meanCurve(main.filter((run) => run.record.method === method).map(pick)),
  }));
}

/** The evaluation points of a run: the summary's `evals`, else the `eval` of its step metrics. */
function evalPoints(run: ReportRun) {
  if (run.record.evals.length) return run.record.evals;
  const fromSteps = run.steps.flatMap((step) => (step.eval ? [{ step: step.step, ...step.eval }] : []));
  return run.record.initialEvalUnderH0 ? [{ step: 0, ...run.record.initialEvalUnderH0 }, ...fromSteps] : fromSteps;
}

/**
 * A run's rescue success so far at each step: rescued groups with a success over groups rescued,
 * from step 1 on. A step holds a handful of rescues, so its own rate jumps between 0 and 1; the
 * running rate is what the run's summary ends with.
 */
function cumulativeRescueSuccess(run: ReportRun): Array<{ x: number; y: number }> {
  let rescued = 0;
  let succeeded = 0;
  return run.steps.flatMap((step) => {
    rescued += step.rescued ?? step.rescueTriggered;
    succeeded += step.rescueSucceeded;
    return rescued > 0 ? [{ x: step.step, y: succeeded / rescued }] : [];
  });
}

function rescueSeries(runs: readonly ReportRun[]): LineSeries[] {
  const rescuing = runs.filter((run) => rescuingMethods.has(run.record.method));
  const keys = unique(
    sortMethods(rescuing.map((run) => run.record.method)).flatMap((method) =>
      sortVariants(rescuing.filter((run) => run.record.method === method).map((run) => run.record.variant)).map(
        (variant) => `${method}|${variant}`,
      ),
    ),
  );
  const series = keys.map((key) => {
    const [method = '', variant = 'main'] = key.split('|');
    const k = rescuing.find((run) => run.record.method === method && run.record.variant === variant)?.record.k ?? 0;
    const label = variant === 'main' ? method : `${method}: ${routerArmLabel(variant, k)}`;
    return {
      label,
      color: variant === 'main' ? methodColor(method) : variantColor(variant),
      dashed: variant !== 'main',
      points: meanCurve(
        rescuing
          .filter((run) => run.record.method === method && run.record.variant === variant)
          .map(cumulativeRescueSuccess),
      ),
    };
  });
  // The ablations' dashed lines first, so the methods' solid lines are drawn over them.
  return [...series.filter((line) => line.dashed), ...series.filter((line) => !line.dashed)];
}

/** Stacks of shares per category, the largest parts first, the rest folded into `other`. */
function stacksOf(shares: ReadonlyArray<Record<string, number>>, h0: string, limit = 6): Stack[] {
  const totals = new Map<string, number>();
  for (const share of shares)
    for (const [id, value] of Object.entries(share)) totals.set(id, (totals.get(id) ?? 0) + value);
  const ranked = [...totals.entries()]
    .sort(([a, x], [b, y]) => (a === h0 ? -1 : b === h0 ? 1 : y - x))
    .map(([id]) => id);
  const shown = ranked.slice(0, limit);
  const rest = ranked.slice(limit);
  const stacks: Stack[] = shown.map((id, index) => ({
    label: id === h0 ? 'H0' : id,
    color: harnessColor(id === h0 ? 'h0' : id, index),
    values: shares.map((share) => share[id] ?? 0),
  }));
  if (rest.length) {
    stacks.push({
      label: `${rest.length} other variants`,
      color: '#c9d1d9',
      values: shares.map((share) => rest.reduce((sum, id) => sum + (share[id] ?? 0), 0)),
    });
  }
  return stacks;
}

/**
 * The router's top choices over training: from `router.jsonl` (shares at each re-anchoring, mean
 * over seeds); else H0's top share before and after training from the results; else which
 * variants rescue attempts ran under, per step.
 */
function routerChart(env: string, runs: readonly ReportRun[]): string {
  const routed = runs.filter((run) => run.record.method === 'harness-s' && run.record.variant === 'main');
  const id = `${slug(env)}-router`;
  const logged = routed.filter((run) => run.router.length > 0);
  if (logged.length) {
    const steps = unique(logged.flatMap((run) => run.router.map((line) => line.step))).sort((a, b) => a - b);
    const shares = steps.map((step) => {
      const lines = logged.flatMap((run) => run.router.filter((line) => line.step === step));
      const ids = unique(lines.flatMap((line) => Object.keys(line.topShares)));
      return Object.fromEntries(
        ids.map((harnessId) => [harnessId, mean(lines.map((line) => line.topShares[harnessId] ?? 0))]),
      );
    });
    // The first profiles read as before training, those anchored on the trained policy as after it.
    const trainedSteps = Math.max(...logged.map((run) => run.record.steps));
    const label = (step: number) => {
      const anchored = logged.flatMap((run) => run.router.filter((line) => line.step === step))[0]?.anchoredAtStep;
      return anchored === 0
        ? 'before training'
        : anchored !== undefined && anchored >= trainedSteps
          ? 'after training'
          : `step ${step}`;
    };
    return stackedBarChart(
      {
        id,
        title: "Router's top choice over training",
        note: `Share of validation tasks whose top-ranked harness is each one, with the profiles the router held at each anchoring: before training, at every re-anchoring (before the step named) and after training (mean over ${logged.length} seed${logged.length > 1 ? 's' : ''}).`,
      },
      steps.map(label),
      stacksOf(shares, logged[0]?.h0 ?? 'h0'),
    );
  }
  const before = routed.flatMap((run) => (run.record.h0TopShare ? [run.record.h0TopShare] : []));
  if (before.length) {
    const h0 = [mean(before.map((share) => share.before)), mean(before.map((share) => share.after))];
    return stackedBarChart(
      {
        id,
        title: "Router's top choice: H0",
        note: 'Share of test tasks whose Rank-1 choice is H0, profiles anchored before and after training.',
      },
      ['before training', 'after training'],
      [
        { label: 'H0', color: harnessColor('h0', 0), values: h0 },
        { label: 'a variant', color: '#c9d1d9', values: h0.map((value) => 1 - value) },
      ],
    );
  }
  const rescued = routed.filter((run) =>
    run.steps.some((step) => Object.keys(step.harnessUsage).some((key) => key !== run.h0)),
  );
  if (rescued.length === 0) {
    return emptyChart({ id, title: "Router's choices" }, 'No router log and no rescue attempts in this run folder.');
  }
  const steps = unique(rescued.flatMap((run) => run.steps.map((step) => step.step))).sort((a, b) => a - b);
  const shares = steps.map((step) => {
    const usage: Record<string, number> = {};
    for (const run of rescued) {
      for (const [harnessId, value] of Object.entries(
        run.steps.find((line) => line.step === step)?.harnessUsage ?? {},
      )) {
        if (harnessId !== run.h0) usage[harnessId] = (usage[harnessId] ?? 0) + value.attempts;
      }
    }
    const total = Object.values(usage).reduce((sum, value) => sum + value, 0);
    return Object.fromEntries(
      Object.entries(usage).map(([harnessId, value]) => [harnessId, total ? value / total : 0]),
    );
  });
  return stackedBarChart(
    {
      id,
      title: 'Variants chosen for rescue',
      note: 'Share of rescue attempts per variant at each step (no router log in this folder).',
    },
    steps.map((step) => `step ${step}`),
    stacksOf(shares, rescued[0]?.h0 ?? 'h0'),
  );
}

/** Variants drawn in a helps-and-hurts chart: the ones that help most net of what they hurt. */
const shownVariants = 14;

/** Each variant's helps and hurts (mean over the sets), the most useful first; and how many there are. */
function profileRows(sets: readonly ReportProfiles[]): { rows: DivergingRow[]; variants: number } {
  const ids = unique(sets.flatMap((set) => set.variants.map((variant) => variant.harnessId)));
  const rows = ids.map((harnessId) => {
    const entries = sets.flatMap((set) => set.variants.filter((variant) => variant.harnessId === harnessId));
    const round = (value: number) => Math.round(value * 10) / 10;
    return {
      label: harnessId,
      ...(entries[0]?.direction ? { detail: entries[0].direction } : {}),
      helps: round(mean(entries.map((entry) => entry.helps.length))),
      hurts: round(mean(entries.map((entry) => entry.hurts.length))),
    };
  });
  rows.sort((a, b) => b.helps - b.hurts - (a.helps - a.hurts) || a.label.localeCompare(b.label));
  return { rows: rows.slice(0, shownVariants), variants: rows.length };
}

/** Which variants a chart shows, when not all of them. */
const shownText = (variants: number): string =>
  variants > shownVariants ? ` The ${shownVariants} of ${variants} variants that help most net of what they hurt.` : '';

/** Helps and hurts per variant: from the profiles anchored before and after training, else the pool. */
function variantCharts(env: string, folder: RunFolder): string[] {
  const sets = folder.profiles[env] ?? {};
  const labels = Object.keys(sets);
  const initial = profileRows(
    labels.filter((label) => !label.startsWith('trained')).map((label) => sets[label] as ReportProfiles),
  );
  const trainedLabels = labels.filter((label) => label.startsWith('trained'));
  const trained = profileRows(trainedLabels.map((label) => sets[label] as ReportProfiles));
  // One scale for both charts, so a bar of the trained policy compares with one of the initial.
  const largest = Math.max(1, ...[...initial.rows, ...trained.rows].flatMap((row) => [row.helps, row.hurts]));
  const tasks = sets[labels[0] ?? '']?.tasks.length ?? 0;
  const charts: string[] = [];
  if (initial.rows.length) {
    charts.push(
      divergingBarChart(
        {
          id: `${slug(env)}-profiles-initial`,
          title: 'Helps and hurts per variant, initial policy',
          note: `Validation tasks (of ${tasks}) each variant solves where H0 fails, and fails where H0 solves.${shownText(initial.variants)}`,
        },
        initial.rows,
        largest,
      ),
    );
  }
  if (trained.rows.length) {
    charts.push(
      divergingBarChart(
        {
          id: `${slug(env)}-profiles-trained`,
          title: 'Helps and hurts per variant, trained policy',
          note: `The same validation tasks, profiled again on the trained policy (mean over ${countOf(trainedLabels.length, 'seed')}), drawn to the same scale as the initial policy's chart.${shownText(trained.variants)}`,
        },
        trained.rows,
        largest,
      ),
    );
  }
  const pool = folder.pools[env];
  if (charts.length === 0 && pool && pool.variants.length) {
    const rows = profileRows([
      { tasks: [], variants: pool.variants.map((variant) => ({ ...variant, harnessId: variant.id })) },
    ]);
    charts.push(
      divergingBarChart(
        {
          id: `${slug(env)}-pool`,
          title: 'Helps and hurts per pool variant',
          note: `From the pool’s validation runs during evolution.${shownText(rows.variants)}`,
        },
        rows.rows,
      ),
    );
  }
  return charts;
}

/** The charts of one environment, in reading order. */
export function environmentCharts(env: string, folder: RunFolder): string[] {
  const runs = folder.runs.filter((run) => run.record.env === env);
  const k = runs[0]?.record.evalUnderH0.k ?? 3;
  const charts = [
    lineChart(
      { id: `${slug(env)}-pass`, title: `Pass@${k} under H0`, note: 'On the test split, mean ± spread over seeds.' },
      methodSeries(runs, (run) => evalPoints(run).map((point) => ({ x: point.step, y: point.passAtK }))),
    ),
    lineChart(
      { id: `${slug(env)}-avg`, title: `Avg@${k} under H0`, note: 'On the test split, mean ± spread over seeds.' },
      methodSeries(runs, (run) => evalPoints(run).map((point) => ({ x: point.step, y: point.avgAtK }))),
    ),
    lineChart(
      {
        id: `${slug(env)}-effective`,
        title: 'Effective-group rate',
        note: 'Retained groups with both a success and a failure.',
      },
      methodSeries(runs, (run) => run.steps.map((step) => ({ x: step.step, y: step.effectiveGroupRate }))),
    ),
  ];
  const rescue = rescueSeries(runs);
  if (rescue.length) {
    charts.push(
      lineChart(
        {
          id: `${slug(env)}-rescue`,
          title: 'Rescue success so far',
          note: 'Rescued groups with a success over the groups rescued up to each step (what the run summary ends with), mean over seeds.',
        },
        rescue,
      ),
    );
  }
  if (runs.some((run) => run.record.method === 'harness-s')) charts.push(routerChart(env, runs));
  charts.push(...variantCharts(env, folder));
  return charts;
}

/** The charts section: one block per environment. */
export function chartsSection(folder: RunFolder): string {
  const envs = unique(folder.runs.map((run) => run.record.env));
  return envs
    .map(
      (env) =>
        `<div class="env-block" id="curves-${escapeHtml(slug(env))}">${envs.length > 1 ? `<h3 class="env-heading">${escapeHtml(env)}</h3>` : ''}<div class="chart-grid">${environmentCharts(env, folder).join('\n')}</div></div>`,
    )
    .join('\n');
}
