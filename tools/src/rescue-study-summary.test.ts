import { describe, expect, it } from 'vitest';
import {
  pairedText,
  poolRescueStudies,
  type RescueStudyFile,
  studyArmHeadings,
  summarizeRescueStudy,
} from './rescue-study-summary.js';

/** A studied step with these rescue counts (adaptive, fixed, half, random, h0, ceiling). */
function stage(step: number, allFailed: number, counts: number[], afx: [number, number], fvh: [number, number]) {
  const [adaptive, fixed, half, random, h0, ceiling] = counts;
  return {
    step,
    groups: 40,
    allFailed,
    arms: {
      adaptive: { rescued: adaptive as number, rate: null },
      fixed: { rescued: fixed as number, rate: null },
      'adaptive-half': { rescued: half as number, rate: null },
      random: { rescued: random as number, rate: null },
      'h0-resample': { rescued: h0 as number, rate: null },
      ceiling: { rescued: ceiling as number, rate: null },
    },
    adaptiveVsFixed: { onlyFirst: afx[0], onlySecond: afx[1], differentSets: 3 },
    fullVsHalf: { onlyFirst: fvh[0], onlySecond: fvh[1] },
    cases: [],
  };
}

const study = (stages: RescueStudyFile['stages']): RescueStudyFile => ({
  reps: 5,
  variants: 8,
  seed: 1,
  carryOver: 0.5,
  stages,
});

describe('rescue studies pooled over runs', () => {
  it('sums failed groups and rescues per environment and phase, and rates them on the pooled groups', () => {
    const seed1 = summarizeRescueStudy(
      study([
        stage(0, 10, [9, 9, 8, 7.5, 3, 10], [0, 0], [2, 1]),
        stage(6, 4, [3, 4, 3, 2, 1, 4], [0, 1], [1, 1]),
        stage(12, 2, [2, 1, 2, 1, 0, 2], [1, 0], [0, 0]),
      ]),
    );
    const seed2 = summarizeRescueStudy(
      study([stage(0, 6, [3, 3, 4, 2.5, 1, 5], [0, 0], [0, 1]), stage(12, 4, [1, 1, 2, 1, 0, 3], [0, 0], [0, 1])]),
    );
    // The cases stay in the file; the summary keeps the counts.
    expect(seed1.stages[0]).toEqual({
      step: 0,
      groups: 40,
      allFailed: 10,
      rescued: { adaptive: 9, fixed: 9, 'adaptive-half': 8, random: 7.5, 'h0-resample': 3, ceiling: 10 },
      adaptiveVsFixed: { onlyFirst: 0, onlySecond: 0 },
      fullVsHalf: { onlyFirst: 2, onlySecond: 1 },
    });
    const pooled = poolRescueStudies([
      { env: 'dbbench', rescueStudy: seed1 },
      { env: 'dbbench', rescueStudy: seed2 },
      { env: 'dbbench' },
      { env: 'appworld', rescueStudy: summarizeRescueStudy(study([stage(0, 0, [0, 0, 0, 0, 0, 0], [0, 0], [0, 0])])) },
    ]);
    expect(pooled.map((row) => [row.env, row.phase, row.steps, row.runs, row.groups, row.allFailed])).toEqual([
      ['dbbench', 'before training', [0], 2, 80, 16],
      ['dbbench', 'training', [6, 12], 2, 120, 10],
      ['appworld', 'before training', [0], 1, 40, 0],
    ]);
    const [before, training, untouched] = pooled;
    // (9 + 3) / 16, (8 + 4) / 16, (7.5 + 2.5) / 16, (10 + 5) / 16.
    expect(before?.rates).toEqual({
      adaptive: 0.75,
      fixed: 0.75,
      'adaptive-half': 0.75,
      random: 0.625,
      'h0-resample': 0.25,
      ceiling: 0.9375,
    });
    // (3 + 2 + 1) / 10 against (4 + 1 + 1) / 10; the paired counts add up over the steps and seeds.
    expect(training?.rates.adaptive).toBeCloseTo(0.6, 12);
    expect(training?.rates.fixed).toBeCloseTo(0.6, 12);
    expect(training?.adaptiveVsFixed).toEqual({ onlyFirst: 1, onlySecond: 1 });
    expect(training?.fullVsHalf).toEqual({ onlyFirst: 1, onlySecond: 2 });
    // No failed group: no rate rather than 0%.
    expect(untouched?.rates.adaptive).toBeNull();
  });

  it('names the arms after the rescue width', () => {
    expect(studyArmHeadings(8).map(([, heading]) => heading)).toEqual([
      'adaptive 8x1',
      'fixed 8x1',
      'adaptive 4x2',
      'random 8x1',
      'H0 x8',
      'any variant',
    ]);
    expect(studyArmHeadings(1)[2]?.[1]).toBe('adaptive 1x2');
    expect(pairedText({ onlyFirst: 3, onlySecond: 0 })).toBe('+3 / -0');
  });
});
