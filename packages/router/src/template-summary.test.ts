import { describe, expect, it } from 'vitest';
import { type HarnessProfile, templateSummary } from './profiles.js';

/** A variant's profile with the given rates per feature (tasks, H0's rate, its rate). */
const profileWith = (byFeature: HarnessProfile['byFeature']): Omit<HarnessProfile, 'summary' | 'summaryBy'> => ({
  harnessId: 'v-1',
  parent: 'h0',
  direction: 'verify writes',
  description: '',
  outcomes: {},
  successRate: 0.75,
  helps: ['t1'],
  hurts: [],
  byFeature,
});

describe('the template summary of a profile', () => {
  it('names as strongest only the features where the variant is ahead of H0 as printed, best lead first', () => {
    const summary = templateSummary(
      profileWith({
        // Five sixths each, summed in another order: a tie, though the floats differ.
        'category=UPDATE': { tasks: 6, h0Rate: 0.8333333333333333, rate: 0.8333333333333334 },
        // Ahead by less than half a point: printed as a tie.
        'category=SELECT': { tasks: 4, h0Rate: 0.5, rate: 0.504 },
        'tag=join': { tasks: 3, h0Rate: 0.2, rate: 0.6 },
        'difficulty=hard': { tasks: 2, h0Rate: 0, rate: 0.5 },
        // One task is too little to call a strength.
        'tag=rare': { tasks: 1, h0Rate: 0, rate: 1 },
        'category=DELETE': { tasks: 5, h0Rate: 0.8, rate: 0.6 },
      }),
      0.5,
    );
    expect(summary).toBe(
      'v-1 for verify writes: success 75% vs H0 50%; helps on 1 task H0 fails, hurts on 0 tasks H0 solves; ' +
        'strongest on difficulty=hard (50% vs H0 0%), tag=join (60% vs H0 20%)',
    );
  });

  it('says nothing of strengths when the variant leads nowhere', () => {
    const summary = templateSummary(
      profileWith({ 'category=UPDATE': { tasks: 6, h0Rate: 0.8333333333333333, rate: 0.8333333333333334 } }),
      0.5,
    );
    expect(summary).not.toContain('strongest');
  });
});
