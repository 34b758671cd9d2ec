import { Random } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { handProfiles, selectTask, variant } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter, reorderByRescues } from './adaptive-router.js';
import { carryOverProfiles } from './profiles.js';
import { ProfileStatsRanker } from './rankers.js';

describe('carrying evidence over anchors', () => {
  it('adds the earlier counts at a discount and derives rates, helps and hurts again', async () => {
    // Earlier: H0 failed c, which only narrow solved. Now H0 and every variant solve a and b alike,
    // and nothing solves c: the fresh anchor alone cannot tell the variants apart.
    const earlier = handProfiles({
      h0: { a: 2, b: 4, c: 0 },
      broad: { a: 4, b: 4, c: 0 },
      narrow: { a: 1, b: 1, c: 3 },
    });
    const fresh = handProfiles({ h0: { a: 4, b: 4, c: 0 }, broad: { a: 4, b: 4, c: 0 }, narrow: { a: 4, b: 4, c: 0 } });
    const carried = carryOverProfiles(earlier, fresh, 0.5);
    const narrow = carried.variants.find((profile) => profile.harnessId === 'narrow');
    expect(narrow?.outcomes).toEqual({
      a: { attempts: 6, successes: 4.5 },
      b: { attempts: 6, successes: 4.5 },
      c: { attempts: 6, successes: 1.5 },
    });
    expect(narrow?.helps).toEqual(['c']);
    expect(carried.h0.outcomes['a']).toEqual({ attempts: 6, successes: 5 });
    expect(carried.policyVersion).toBe(fresh.policyVersion);
    // So the rescue ranking still finds narrow for tasks like c; on the fresh anchor alone the two
    // tie everywhere, and the tie goes to the id.
    const ranker = new ProfileStatsRanker();
    const request = { task: selectTask('new'), candidates: ['broad', 'narrow'], purpose: 'rescue' as const };
    expect(await ranker.rank({ ...request, profiles: carried })).toEqual(['narrow', 'broad']);
    expect(await ranker.rank({ ...request, profiles: fresh })).toEqual(['broad', 'narrow']);
    // Rescue evidence stays paired with each anchor's H0: failure-weighted counts (a: H0 failed half
    // of the earlier attempts; b: none; c: all), the earlier anchor's at half. The fresh anchor's
    // successes on a, which H0 now solves, add nothing; merged counts at the merged failure rate
    // (1/6 on a) would credit narrow with 0.75 successes there instead of 0.25.
    expect(narrow?.rescueEvidence).toEqual({
      a: { attempts: 1, successes: 0.25 },
      b: { attempts: 0, successes: 0 },
      c: { attempts: 6, successes: 1.5 },
    });
    expect(carried.variants.find((profile) => profile.harnessId === 'broad')?.rescueEvidence).toEqual({
      a: { attempts: 1, successes: 1 },
      b: { attempts: 0, successes: 0 },
      c: { attempts: 6, successes: 0 },
    });
    expect(carryOverProfiles(earlier, fresh, 0)).toBe(fresh);
    expect(() => carryOverProfiles(earlier, fresh, 1.5)).toThrow(/discount must be in \[0, 1\]/);
  });
});

describe('rescue evidence in the ranking', () => {
  it('ranks for rescue by the paired evidence, and for routing by the outcomes', async () => {
    const profiles = handProfiles({ h0: { a: 4, c: 0 }, broad: { a: 4, c: 0 }, narrow: { a: 4, c: 0 } });
    const narrow = profiles.variants.find((profile) => profile.harnessId === 'narrow');
    if (!narrow) throw new Error('no narrow');
    // What an earlier anchor saw while H0 failed c: narrow solved it.
    narrow.rescueEvidence = { a: { attempts: 0, successes: 0 }, c: { attempts: 2, successes: 2 } };
    const ranker = new ProfileStatsRanker();
    const request = { task: selectTask('new'), candidates: ['broad', 'narrow'], profiles };
    expect(await ranker.rank({ ...request, purpose: 'rescue' })).toEqual(['narrow', 'broad']);
    // The outcomes tie everywhere: routing falls back to the ids.
    expect(await ranker.rank({ ...request, purpose: 'route' })).toEqual(['broad', 'narrow']);
  });
});

describe('rescue history', () => {
  const profiles = handProfiles({
    h0: { a: 4, b: 4, c: 0 },
    broad: { a: 4, b: 4, c: 0 },
    narrow: { a: 1, b: 1, c: 3 },
    other: { a: 0, b: 0, c: 2 },
    spare: { a: 0, b: 0, c: 1 },
  });
  const candidates = ['broad', 'narrow', 'other', 'spare'];

  it('puts what solved the task before first, then the untried in vote order, then what only failed it', () => {
    const seen = {
      narrow: { attempts: 2, successes: 0 },
      other: { attempts: 1, successes: 1 },
      spare: { attempts: 3, successes: 1 },
    };
    // other (1+1)/(1+2) = 0.67 before spare (1+1)/(3+2) = 0.4; broad untried; narrow failed twice.
    expect(reorderByRescues(['narrow', 'spare', 'broad', 'other'], seen)).toEqual([
      'other',
      'spare',
      'broad',
      'narrow',
    ]);
    expect(reorderByRescues(['narrow', 'broad'], undefined)).toEqual(['narrow', 'broad']);
  });

  it('with rescue memory, an adaptive router stops repeating a rescue set that failed; others learn nothing', async () => {
    const pool = candidates.map((id) => variant(id).spec);
    const request = { task: selectTask('t'), pool, count: 2, step: 1, random: new Random(1) };
    const adaptive = new AdaptiveRouter({ profiles, mode: 'adaptive', rescueMemory: true });
    const fixed = new AdaptiveRouter({ profiles, mode: 'fixed', rescueMemory: true });
    const forgetful = new AdaptiveRouter({ profiles, mode: 'adaptive' });
    const first = await adaptive.select(request);
    expect(await fixed.select(request)).toEqual(first);
    const report = {
      task: request.task,
      step: 1,
      outcomes: first.map((harnessId) => ({ harnessId, attempts: 1, successes: 0 })),
    };
    adaptive.observe(report);
    fixed.observe(report);
    forgetful.observe(report);
    expect(fixed.rescueHistory).toEqual({});
    expect(forgetful.rescueHistory).toEqual({});
    expect(await forgetful.select(request)).toEqual(first);
    expect(await fixed.select(request)).toEqual(first);
    const second = await adaptive.select(request);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    // Another task is routed as before, and the history survives a checkpoint.
    expect(await adaptive.select({ ...request, task: selectTask('u') })).toEqual(first);
    const restored = new AdaptiveRouter({ mode: 'adaptive', rescueMemory: true });
    restored.restore(adaptive.state());
    expect(await restored.select(request)).toEqual(second);
    // A checkpoint from before rescue history existed restores with none.
    const { rescues: _dropped, ...older } = adaptive.state() as Record<string, unknown>;
    restored.restore(older);
    expect(restored.rescueHistory).toEqual({});
  });
});
