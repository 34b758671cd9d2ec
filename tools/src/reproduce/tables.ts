import { rescuingMethods } from '../compared-runs.js';
import { renderTable } from '../format.js';
import { rescueSuccessRates } from '../report/stats.js';
import { pairedText, poolRescueStudies, studyArmHeadings, studyShapes } from '../rescue-study-summary.js';
import { formatPairedDifferences } from './paired-table.js';
import { mean, type ResultRecord, spread } from './results.js';
import { ablations, reproduceMethods, routerArmLabel } from './settings.js';

const pct = (value: number): string => `${(value * 100).toFixed(2)}`;
const meanSpread = (values: readonly number[]): string =>
  values.length ? `${pct(mean(values))} ± ${pct(spread(values))}` : '-';

/** The paper-style tables of a reproduction, as text. */
export function formatReproduceTables(records: readonly ResultRecord[]): string {
  const envs = [...new Set(records.map((record) => record.env))];
  const sections: string[] = [];
  const main = records.filter((record) => record.variant === 'main');
  const k = main[0]?.evalUnderH0.k ?? 3;

  sections.push(
    `Evaluated under H0 on the test split (mean ± sample std over seeds, %)\n${renderTable(
      [
        'env',
        'method',
        'seeds',
        `Pass@${k}`,
        `Avg@${k}`,
        'effective groups',
        'effective tokens',
        'all-failed groups',
        'rescue success',
      ],
      envs.flatMap((env) =>
        reproduceMethods.flatMap((method) => {
          const runs = main.filter((record) => record.env === env && record.method === method);
          if (runs.length === 0) return [];
          return [
            [
              env,
              method,
              String(runs.length),
              meanSpread(runs.map((run) => run.evalUnderH0.passAtK)),
              meanSpread(runs.map((run) => run.evalUnderH0.avgAtK)),
              meanSpread(runs.map((run) => run.effectiveGroupRate)),
              meanSpread(runs.map((run) => run.effectiveTokenShare)),
              meanSpread(runs.map((run) => run.rescueTriggerRate)),
              rescuingMethods.has(method) ? meanSpread(rescueSuccessRates(runs)) : '-',
            ],
          ];
        }),
      ),
    )}`,
  );

  const ablationRows = envs.flatMap((env) =>
    (['main', ...ablations] as const).flatMap((variant) => {
      const runs = records.filter(
        (record) => record.env === env && record.method === 'harness-s' && record.variant === variant,
      );
      if (runs.length === 0) return [];
      // The rescue shapes follow the group size: K x 1, and K/2 x 2 for the breadth ablation.
      const label = routerArmLabel(variant, (runs[0] as ResultRecord).k);
      return [
        [env, label, meanSpread(rescueSuccessRates(runs)), meanSpread(runs.map((run) => run.evalUnderH0.avgAtK))],
      ];
    }),
  );
  if (ablationRows.length) {
    sections.push(
      `Router ablations (harness-s)\n${renderTable(['env', 'router', 'rescue success', `Avg@${k}`], ablationRows)}`,
    );
  }

  const routed = main.filter((record) => record.rank1);
  if (routed.length) {
    sections.push(
      `Rank-1 routing after training (harness-s; H0 on the same draws as Rank-1, apart from the table above)\n${renderTable(
        ['env', `H0 Avg@${k}`, `Rank-1 Avg@${k}`, `H0 Pass@${k}`, `Rank-1 Pass@${k}`, 'H0 top choice before', 'after'],
        envs.flatMap((env) => {
          const runs = routed.filter((record) => record.env === env);
          if (runs.length === 0) return [];
          return [
            [
              env,
              meanSpread(runs.map((run) => (run.rank1H0 ?? run.evalUnderH0).avgAtK)),
              meanSpread(runs.map((run) => run.rank1?.avgAtK ?? 0)),
              meanSpread(runs.map((run) => (run.rank1H0 ?? run.evalUnderH0).passAtK)),
              meanSpread(runs.map((run) => run.rank1?.passAtK ?? 0)),
              meanSpread(runs.map((run) => run.h0TopShare?.before ?? 0)),
              meanSpread(runs.map((run) => run.h0TopShare?.after ?? 0)),
            ],
          ];
        }),
      )}`,
    );
  }

  const paired = formatPairedDifferences(records, k);
  if (paired) sections.push(paired);

  const studies = poolRescueStudies(main);
  if (studies.length) {
    const m = studies[0]?.variants ?? k;
    const arms = studyArmHeadings(m);
    const rate = (value: number | null) => (value === null ? '-' : `${pct(value)}`);
    sections.push(
      `Rescue study of the harness-s runs (all-failed H0 groups pooled over seeds, %; the same attempts for every arm)\n${renderTable(
        [
          'env',
          'policy',
          'all-failed',
          ...arms.map(([, heading]) => heading),
          'adaptive vs fixed',
          `${studyShapes(m).full} vs ${studyShapes(m).half}`,
        ],
        studies.map((study) => [
          study.env,
          study.phase === 'before training' ? 'before training' : `steps ${study.steps.join(', ')}`,
          `${study.allFailed}/${study.groups}`,
          ...arms.map(([arm]) => rate(study.rates[arm])),
          pairedText(study.adaptiveVsFixed),
          pairedText(study.fullVsHalf),
        ]),
      )}`,
    );
  }

  const families = [...new Set(main.flatMap((record) => Object.keys(record.families ?? {})))];
  if (families.length) {
    sections.push(
      `Other harness families, no further training (Pass@${k})\n${renderTable(
        ['env', 'method', ...families],
        envs.flatMap((env) =>
          reproduceMethods.flatMap((method) => {
            const runs = main.filter((record) => record.env === env && record.method === method && record.families);
            if (runs.length === 0) return [];
            return [
              [
                env,
                method,
                // A family the environment does not have is no 0: '-'.
                ...families.map((family) =>
                  meanSpread(runs.flatMap((run) => (run.families?.[family] ? [run.families[family].passAtK] : []))),
                ),
              ],
            ];
          }),
        ),
      )}`,
    );
  }
  return sections.join('\n\n');
}
