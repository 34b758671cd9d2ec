import { describe, expect, it } from 'vitest';
import type { ComparedGroup } from './compared-runs.js';
import {
  againstBaseline,
  clearOfZero,
  differencesTable,
  pairedDifference,
  pairedDifferenceText,
  parseAgainst,
} from './paired-differences.js';

describe('paired differences', () => {
  it('are the mean difference with a 95% t interval, worked by hand', () => {
    // Differences 0.1, 0.2, 0.3: mean 0.2, sample sd 0.1, t(0.975, 2) = 4.303, half width 0.248.
    const three = pairedDifference([0.1, 0.2, 0.3]);
    expect(three.pairs).toBe(3);
    expect(three.mean).toBeCloseTo(0.2, 12);
    expect(three.interval?.[0]).toBeCloseTo(0.2 - (4.303 * 0.1) / Math.sqrt(3), 9);
    expect(three.interval?.[1]).toBeCloseTo(0.2 + (4.303 * 0.1) / Math.sqrt(3), 9);
    expect(pairedDifferenceText(three)).toBe('+20.0 [-4.8, +44.8]');
    // Beyond 31 pairs the normal quantile.
    const many = pairedDifference(Array.from({ length: 40 }, (_, index) => (index % 2 ? 0.1 : -0.1)));
    expect(many.interval?.[1]).toBeCloseTo((1.96 * Math.sqrt((40 * 0.01) / 39)) / Math.sqrt(40), 9);
    expect(pairedDifferenceText(pairedDifference([-0.05]))).toBe('-5.0');
    expect(pairedDifferenceText(pairedDifference([]))).toBe('-');
  });

  it('pair each row with the baseline runs of the same seed and environment', () => {
    const run = (method: string, env: string, seed: number, effective: number, avg: number) => ({
      dir: `/r/${env}/${method}/${seed}`,
      settings: { method, env, evalK: '3' },
      summary: { seed, evalUnderH0: { passAtK: 1, avgAtK: avg, k: 3 }, effectiveGroupRate: effective } as never,
    });
    const group = (runs: ReturnType<typeof run>[]): ComparedGroup => ({
      settings: { method: runs[0]?.settings.method ?? '', env: runs[0]?.settings.env ?? '' },
      runs,
    });
    const groups = [
      group([run('grpo', 'a', 1, 0.5, 0.5), run('grpo', 'a', 2, 0.6, 0.5), run('grpo', 'a', 3, 0.7, 0.5)]),
      group([run('grpo', 'b', 1, 0.1, 0.5)]),
      // Seed 4 has no baseline: it is left out of the pairs.
      group([run('mixture', 'a', 1, 0.6, 0.4), run('mixture', 'a', 2, 0.8, 0.4), run('mixture', 'a', 4, 0.9, 0.4)]),
      group([run('mixture', 'b', 1, 0.4, 0.5)]),
    ];
    const results = againstBaseline(groups, ['method', 'env'], parseAgainst('method=grpo'));
    expect(results.map((result) => result.baseline)).toEqual([groups[0], groups[1]]);
    expect(results[0]?.differences['effectiveGroupRate']?.mean).toBeCloseTo(0.15, 12);
    const { headers, rows } = differencesTable(results, ['method', 'env'], '3');
    expect(headers).toEqual([
      'method',
      'env',
      'paired seeds',
      'Δ Pass@3',
      'Δ Avg@3',
      'Δ effective groups',
      'Δ rescue success',
    ]);
    // Neither method rescues: no rescue success to compare.
    expect(rows).toEqual([
      ['mixture', 'a', '2', '+0.0 (every pair)', '-10.0 (every pair)', '+15.0 [-48.5, +78.5]', '-'],
      ['mixture', 'b', '1', '+0.0', '+0.0', '+30.0', '-'],
    ]);
    expect(() => againstBaseline(groups, ['method', 'env'], ['method', 'ppo'])).toThrow(
      '--against method=ppo: no runs with it (method is grpo, mixture)',
    );
    expect(() => againstBaseline(groups, ['method', 'env'], ['methd', 'grpo'])).toThrow(
      /^--against methd=grpo: no run has the setting 'methd'; they have .*\bmethod\b/,
    );
    expect(() => parseAgainst('grpo')).toThrow("--against: give SETTING=VALUE, e.g. method=grpo, not 'grpo'");
  });

  it('compare rescue success between runs that both rescued', () => {
    const run = (router: string, seed: number, triggered: number, rescued: number) => ({
      dir: `/r/${router}/${seed}`,
      settings: { method: 'harness-s', router, env: 'a', evalK: '3' },
      summary: {
        method: 'harness-s',
        seed,
        evalUnderH0: { passAtK: 1, avgAtK: 0.5, k: 3 },
        effectiveGroupRate: 0.5,
        rescueTriggerRate: triggered,
        rescueSuccessRate: rescued,
      } as never,
    });
    const group = (runs: ReturnType<typeof run>[]): ComparedGroup => ({
      settings: { router: runs[0]?.settings.router ?? '' },
      runs,
    });
    const fixed = group([run('fixed', 1, 0.2, 0.5), run('fixed', 2, 0.2, 0.6), run('fixed', 3, 0.2, 0.25)]);
    // Seed 3 of the adaptive runs triggered no rescue: its 0 is no rescue success, and the pair is left out.
    const adaptive = group([run('adaptive', 1, 0.2, 0.7), run('adaptive', 2, 0.2, 0.7), run('adaptive', 3, 0, 0)]);
    const [result] = againstBaseline([fixed, adaptive], ['router'], parseAgainst('router=fixed'));
    expect(result?.differences['rescueSuccessRate']?.pairs).toBe(2);
    expect(result?.differences['rescueSuccessRate']?.mean).toBeCloseTo(0.15, 12);
    expect(result?.differences['passAtK']?.pairs).toBe(3);
    const { rows } = differencesTable(result ? [result] : [], ['router'], '3');
    expect(rows[0]?.at(-1)).toBe('+15.0 [-48.5, +78.5] (2 pairs)');
  });
});

describe('pairing refused where it would mislead', () => {
  const run = (settings: Record<string, string>, seed: number) => ({
    dir: `/r/${Object.values(settings).join('/')}/${seed}`,
    settings: { env: 'a', evalK: '3', ...settings },
    summary: { seed, evalUnderH0: { passAtK: 1, avgAtK: 0.5, k: 3 }, effectiveGroupRate: 0.5 } as never,
  });
  const group = (settings: Record<string, string>, runs: ReturnType<typeof run>[]): ComparedGroup => ({
    settings,
    runs,
  });

  it('a row holding two runs of one seed, naming the settings that tell them apart', () => {
    const groups = [
      group({ method: 'grpo' }, [
        run({ method: 'grpo', variant: 'main' }, 1),
        run({ method: 'grpo', variant: 'main' }, 2),
      ]),
      group({ method: 'harness-s' }, [
        run({ method: 'harness-s', variant: 'main' }, 1),
        run({ method: 'harness-s', variant: 'fixed-profiles' }, 1),
      ]),
    ];
    expect(() => againstBaseline(groups, ['method'], parseAgainst('method=grpo'))).toThrow(
      '--against: the row method=harness-s holds two runs of seed 1 (they differ in variant), so its seeds cannot be paired one to one; add variant to --by',
    );
  });

  it('a baseline that several rows match alike', () => {
    const groups = [
      group({ method: 'grpo', variant: 'main' }, [run({ method: 'grpo', variant: 'main' }, 1)]),
      group({ method: 'mixture', variant: 'main' }, [run({ method: 'mixture', variant: 'main' }, 1)]),
      group({ method: 'harness-s', variant: 'fixed' }, [run({ method: 'harness-s', variant: 'fixed' }, 1)]),
    ];
    expect(() => againstBaseline(groups, ['method', 'variant'], parseAgainst('variant=main'))).toThrow(
      /--against variant=main: for method=harness-s variant=fixed it matches 2 rows alike \(method=grpo variant=main; method=mixture variant=main\)/,
    );
  });
});

describe('a paired difference as shown', () => {
  it('reads float noise as +0.0, and calls a difference clear of 0 only as its rounded interval shows', () => {
    const noise = pairedDifference([-5.5e-17, -5.5e-17]);
    expect(pairedDifferenceText(noise)).toBe('+0.0 (every pair)');
    expect(clearOfZero(noise)).toBe(0);
    expect(clearOfZero(pairedDifference([0.1, 0.1, 0.11]))).toBe(1);
    // The same difference in every pair: a point interval, and nothing to judge it by.
    const alike = pairedDifference([1 / 12, 1 / 12, 1 / 12]);
    expect(pairedDifferenceText(alike)).toBe('+8.3 (every pair)');
    expect(clearOfZero(alike)).toBe(0);
    expect(pairedDifferenceText(pairedDifference([0.7 - 0.6, 0.6 - 0.5]))).toBe('+10.0 (every pair)');
    expect(clearOfZero(pairedDifference([-0.1, -0.2, -0.15]))).toBe(-1);
    expect(clearOfZero(pairedDifference([-0.1, 0.2]))).toBe(0);
    expect(clearOfZero(pairedDifference([0.3]))).toBe(0);
  });
});
