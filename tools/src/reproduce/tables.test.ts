import { describe, expect, it } from 'vitest';
import type { ResultRecord } from './results.js';
import { formatReproduceTables } from './tables.js';

const rates = (passAtK: number, avgAtK: number) => ({ passAtK, avgAtK, k: 3 });

function record(seed: number, extra: Partial<ResultRecord> = {}): ResultRecord {
  return {
    schemaVersion: 1,
    method: 'harness-s',
    env: 'dbbench',
    seed,
    steps: 2,
    k: 2,
    policyVersion: 'sim@2',
    evalUnderH0: rates(0.5, 0.4),
    initialEvalUnderH0: null,
    evals: [],
    effectiveGroupRate: 0.5,
    effectiveTokenShare: 0.5,
    rescueTriggerRate: 0.25,
    rescueSuccessRate: 0.5,
    infraErrors: 0,
    trainTasks: 4,
    testTasks: 2,
    durationMs: 1,
    variant: 'main',
    runDir: `train/dbbench/main/harness-s/seed-${seed}`,
    ...extra,
  } as ResultRecord;
}

describe('the Rank-1 table', () => {
  it('compares Rank-1 with H0 on the same attempt seeds when the record has that evaluation', () => {
    const text = formatReproduceTables([
      record(1, { rank1: rates(1, 0.9), rank1H0: rates(0.75, 0.6), h0TopShare: { before: 0, after: 0.5 } }),
      record(2, { rank1: rates(1, 0.7), rank1H0: rates(0.25, 0.2), h0TopShare: { before: 0, after: 0 } }),
    ]);
    const section = text.slice(text.indexOf('Rank-1 routing after training'));
    const row = section.split('\n').find((line) => line.startsWith('dbbench'));
    // H0 Avg 40 (paired: 0.6 and 0.2), Rank-1 Avg 80, H0 Pass 50, Rank-1 Pass 100, top share 0 -> 25.
    expect(row?.split(/\s{2,}/).map((cell) => cell.trim())).toEqual([
      'dbbench',
      '40.00 ± 28.28',
      '80.00 ± 14.14',
      '50.00 ± 35.36',
      '100.00 ± 0.00',
      '0.00 ± 0.00',
      '25.00 ± 35.36',
    ]);
  });

  it('falls back to the final evaluation under H0 for records written before the paired one', () => {
    const text = formatReproduceTables([record(1, { rank1: rates(1, 0.9) })]);
    const row = text
      .slice(text.indexOf('Rank-1 routing after training'))
      .split('\n')
      .find((line) => line.startsWith('dbbench'));
    expect(
      row
        ?.split(/\s{2,}/)
        .map((cell) => cell.trim())
        .slice(1, 5),
    ).toEqual(['40.00 ± 0.00', '90.00 ± 0.00', '50.00 ± 0.00', '100.00 ± 0.00']);
  });
});

describe('the router ablation table', () => {
  it('names the rescue shapes from the group size of the runs', () => {
    const text = formatReproduceTables([
      record(1, { k: 4 }),
      record(1, { k: 4, variant: 'fixed-profiles' }),
      record(1, { k: 4, variant: 'rescue-4x2' }),
      record(1, { k: 8, env: 'appworld' }),
      record(1, { k: 8, env: 'appworld', variant: 'rescue-4x2' }),
    ]);
    const routers = (text.slice(text.indexOf('Router ablations')).split('\n\n')[0] ?? '')
      .split('\n')
      .filter((line) => /^(dbbench|appworld) /.test(line))
      .map((line) => line.split(/\s{2,}/)[1]?.trim());
    expect(routers).toEqual([
      'adaptive profiles, 4x1',
      'fixed profiles, 4x1',
      'adaptive profiles, 2x2',
      'adaptive profiles, 8x1',
      'adaptive profiles, 4x2',
    ]);
    // So do the paired differences.
    expect(text).toMatch(/dbbench +4x1 − 2x2 +1 /);
    expect(text).toMatch(/appworld +8x1 − 4x2 +1 /);
  });
});

describe('rescue success over seeds', () => {
  it('leaves out a run that never triggered rescue, which has no rate, and says so when none did', () => {
    const text = formatReproduceTables([
      record(1, { rescueSuccessRate: 0.5 }),
      record(2, { rescueSuccessRate: 1 }),
      // Nothing to rescue, not a rescue that failed: null now, 0 in summaries written before.
      record(3, { rescueTriggerRate: 0, rescueSuccessRate: null }),
      record(4, { rescueTriggerRate: 0, rescueSuccessRate: 0 }),
      record(1, { method: 'h0-resample', rescueTriggerRate: 0, rescueSuccessRate: 0 }),
    ]);
    const cells = (method: string) =>
      text
        .split('\n')
        .find((line) => line.startsWith('dbbench') && line.includes(` ${method} `))
        ?.split(/\s{2,}/)
        .map((cell) => cell.trim());
    expect(cells('harness-s')?.at(-1)).toBe('75.00 ± 35.36');
    expect(cells('h0-resample')?.at(-1)).toBe('-');
    const ablation = text
      .slice(text.indexOf('Router ablations'))
      .split('\n')[3]
      ?.split(/\s{2,}/);
    expect(ablation?.[2]).toBe('75.00 ± 35.36');
  });
});

describe('the rescue study table', () => {
  it('pools the studies of the seeds per phase, and is absent without studies', () => {
    const arms = (adaptive: number, fixed: number) => ({
      adaptive,
      fixed,
      'adaptive-half': adaptive,
      random: 1,
      'h0-resample': 0,
      ceiling: 4,
    });
    const study = (before: number, after: number) => ({
      reps: 5,
      variants: 4,
      stages: [
        {
          step: 0,
          groups: 20,
          allFailed: 4,
          rescued: arms(before, before),
          adaptiveVsFixed: { onlyFirst: 0, onlySecond: 0 },
          fullVsHalf: { onlyFirst: 0, onlySecond: 0 },
        },
        {
          step: 2,
          groups: 20,
          allFailed: 4,
          rescued: arms(after, 2),
          adaptiveVsFixed: { onlyFirst: after - 2, onlySecond: 0 },
          fullVsHalf: { onlyFirst: 0, onlySecond: 1 },
        },
      ],
    });
    const text = formatReproduceTables([
      record(1, { rescueStudy: study(2, 3) }),
      record(2, { rescueStudy: study(4, 4) }),
    ]);
    const section = text.slice(text.indexOf('Rescue study'));
    expect(section.split('\n')[1]).toMatch(
      /env +policy +all-failed +adaptive 4x1 +fixed 4x1 +adaptive 2x2 +random 4x1 +H0 x4 +any variant +adaptive vs fixed +4x1 vs 2x2/,
    );
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('dbbench'))
      .map((line) => line.split(/\s{2,}/).map((cell) => cell.trim()));
    expect(rows).toEqual([
      [
        'dbbench',
        'before training',
        '8/40',
        '75.00',
        '75.00',
        '75.00',
        '25.00',
        '0.00',
        '100.00',
        '+0 / -0',
        '+0 / -0',
      ],
      ['dbbench', 'steps 2', '8/40', '87.50', '50.00', '87.50', '25.00', '0.00', '100.00', '+3 / -0', '+0 / -2'],
    ]);
    expect(formatReproduceTables([record(1)])).not.toContain('Rescue study');
  });
});

describe('the table of other harness families', () => {
  it("marks a family an environment does not have '-', not 0", () => {
    const text = formatReproduceTables([
      record(1, { families: { minimal: rates(0.5, 0.4), codeact: rates(1, 1) } }),
      record(1, { env: 'appworld', families: { minimal: rates(0.25, 0.2) } }),
    ]);
    const section = text.slice(text.indexOf('Other harness families'));
    const cells = (env: string) =>
      section
        .split('\n')
        .find((line) => line.startsWith(env))
        ?.split(/\s{2,}/)
        .map((cell) => cell.trim());
    expect(cells('dbbench')).toEqual(['dbbench', 'harness-s', '50.00 ± 0.00', '100.00 ± 0.00']);
    expect(cells('appworld')).toEqual(['appworld', 'harness-s', '25.00 ± 0.00', '-']);
  });
});

describe('the paired differences', () => {
  const rowsOf = (text: string) =>
    text
      .slice(text.indexOf('Paired by seed'))
      .split('\n\n')[0]
      ?.split('\n')
      .filter((line) => line.startsWith('dbbench'))
      .map((line) => line.split(/\s{2,}/).map((cell) => cell.trim())) ?? [];

  it('pairs runs by seed, with a 95% t interval, and leaves out runs without the value', () => {
    const text = formatReproduceTables([
      // harness-s Avg@3 - h0-resample's: seed 1 +0.2, seed 2 +0.1, seed 3 +0.3: mean +20 points,
      // sd 10, t(2) 4.303: +20 +- 24.8. Seed 4 has no h0-resample run, so no pair.
      record(1, { evalUnderH0: rates(0.5, 0.6) }),
      record(2, { evalUnderH0: rates(0.5, 0.5) }),
      record(3, { evalUnderH0: rates(0.5, 0.7) }),
      record(4, { evalUnderH0: rates(0.5, 0.9) }),
      record(1, { method: 'h0-resample', evalUnderH0: rates(0.5, 0.4) }),
      record(2, { method: 'h0-resample', evalUnderH0: rates(0.5, 0.4) }),
      // Seed 3's h0-resample run triggered no rescue: its rescue success is left out (2 pairs).
      record(3, { method: 'h0-resample', evalUnderH0: rates(0.5, 0.4), rescueTriggerRate: 0 }),
    ]);
    expect(rowsOf(text)).toEqual([
      [
        'dbbench',
        'harness-s − h0-resample',
        '3',
        '+0.0 (every pair)',
        '+20.0 [-4.8, +44.8]',
        '+0.0 (every pair)',
        '+0.0 (every pair) (2 pairs)',
      ],
    ]);
  });

  it("gives Rank-1 against H0 on the same run's test attempts, and nothing without two runs to compare", () => {
    expect(formatReproduceTables([record(1)])).not.toContain('Paired by seed');
    const text = formatReproduceTables([
      record(1, { rank1: rates(1, 0.9), rank1H0: rates(0.75, 0.6) }),
      record(2, { rank1: rates(1, 0.7), rank1H0: rates(0.25, 0.2) }),
    ]);
    // Pass@3: +25 and +75 points; Avg@3: +30 and +50.
    expect(rowsOf(text)).toEqual([
      ['dbbench', 'Rank-1 − H0, after training', '2', '+50.0 [-267.6, +367.6]', '+40.0 [-87.1, +167.1]'],
    ]);
  });
});
