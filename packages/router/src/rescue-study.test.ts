import type { Policy, Task } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { counterPolicy } from './__fixtures__/counter-policy.js';
import { variant } from './__fixtures__/hand-profiles.js';
import { buildProfiles } from './profiles.js';
import { randomSubsetHit, studyRescue } from './rescue-study.js';

/**
 * Solves count-1 under every harness. Before training (`v1`) count-N also under `good-N`; after
 * (`v2`) the policy has changed so that `good-N` no longer helps and `alt-N` does: what a
 * variant is good for has moved with the policy, as re-anchoring is meant to notice.
 */
const policyAt = (version: 'v1' | 'v2'): Policy =>
  counterPolicy(
    version,
    (target, harnessId) => target === 1 || harnessId === `${version === 'v1' ? 'good' : 'alt'}-${target}`,
  );

/** Training tasks: the validation tasks under ids of their own, as the two splits never share a task. */
const training = (tasks: readonly Task[]) => tasks.map((task) => ({ ...task, id: `${task.id}-train` }));

describe('randomSubsetHit', () => {
  it('is the chance that a random subset holds a solver, computed by hand', () => {
    // 2 of 4 with 1 solver: 1 - (3/4)(2/3) = 1/2.
    expect(randomSubsetHit(4, 1, 2)).toBeCloseTo(0.5, 12);
    // 3 of 5 with 2 solvers: 1 - (3/5)(2/4)(1/3) = 9/10.
    expect(randomSubsetHit(5, 2, 3)).toBeCloseTo(0.9, 12);
    expect(randomSubsetHit(41, 0, 8)).toBe(0);
    expect(randomSubsetHit(3, 1, 8)).toBe(1);
    expect(randomSubsetHit(10, 9, 2)).toBe(1);
  });
});

/**
 * Profiles anchored on `v1` over the counter's tasks, then a study of `policy` at `step` with the
 * training tasks under ids of their own; `options` override the study's settings.
 */
async function study(
  poolIds: readonly string[],
  policy: Policy,
  step: number,
  options: Partial<Parameters<typeof studyRescue>[0]> = {},
) {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const h0 = createPlainHarness();
  const pool = poolIds.map(variant);
  const initialProfiles = await buildProfiles({
    environment,
    tasks,
    h0,
    pool,
    policy: policyAt('v1'),
    k: 2,
    seed: 1,
    concurrency: 2,
  });
  return studyRescue({
    environment,
    tasks: training(tasks),
    validation: tasks,
    h0,
    pool,
    policy,
    step,
    initialProfiles,
    k: 2,
    variants: 2,
    reps: 1,
    seed: 3,
    concurrency: 2,
    ...options,
  });
}

describe('a rescue study of one stage', () => {
  it('scores every arm on the same failed groups, and sees stale profiles miss what moved', async () => {
    const phases = new Set<string>();
    const stage = await study(['good-2', 'good-3', 'alt-2', 'alt-3', 'bad'], policyAt('v2'), 6, {
      k: 4,
      reps: 2,
      carryOver: 0,
      concurrency: 3,
      onProgress: (phase) => phases.add(phase),
    });
    // count-2 and count-3 fail every H0 attempt, twice each.
    expect(stage).toMatchObject({
      step: 6,
      policyVersion: 'v2',
      groups: 6,
      allFailed: 4,
      infraErrors: 0,
      rescueInfraErrors: 0,
    });
    expect(stage.arms.adaptive).toEqual({ rescued: 4, rate: 1 });
    expect(stage.arms.fixed).toEqual({ rescued: 0, rate: 0 });
    // The top variant twice: alt-2 and alt-3 tie in the vote, and the tie goes to alt-2 (by id),
    // which rescues count-2 only.
    expect(stage.arms['adaptive-half']).toEqual({ rescued: 2, rate: 0.5 });
    expect(stage.arms['h0-resample'].rate).toBe(0);
    expect(stage.arms.ceiling.rate).toBe(1);
    // One solver among five variants, two drawn: 1 - (4/5)(3/4) = 2/5 per group.
    expect(stage.arms.random.rate).toBeCloseTo(0.4, 12);
    expect(stage.adaptiveVsFixed).toEqual({ onlyFirst: 4, onlySecond: 0, differentSets: 4 });
    expect(stage.fullVsHalf).toEqual({ onlyFirst: 2, onlySecond: 0 });
    expect([...phases].sort()).toEqual(['anchor', 'groups', 'rescue']);
    expect(stage.cases.map(({ taskId, rep, solvers }) => `${taskId}/${rep}: ${solvers.join()}`).sort()).toEqual([
      'count-2-train/0: alt-2',
      'count-2-train/1: alt-2',
      'count-3-train/0: alt-3',
      'count-3-train/1: alt-3',
    ]);
    const count3 = stage.cases.find((item) => item.taskId === 'count-3-train');
    expect(count3?.fixed.every((id) => id.startsWith('good-'))).toBe(true);
    expect(count3?.rescuedBy).toEqual(['adaptive', 'ceiling']);
  });

  it('before training the adaptive router has nothing to re-anchor: both arms use the first profiles', async () => {
    const stage = await study(['good-2', 'good-3', 'bad'], policyAt('v1'), 0);
    expect(stage.allFailed).toBe(2);
    expect(stage.arms.adaptive).toEqual(stage.arms.fixed);
    expect(stage.adaptiveVsFixed.differentSets).toBe(0);
    expect(stage.arms.adaptive.rate).toBe(1);
    // Two of three variants with one solver: 1 - (2/3)(1/2) = 2/3.
    expect(stage.arms.random.rate).toBeCloseTo(2 / 3, 12);
  });
});

describe('an interrupted study', () => {
  it('stops at the signal: re-anchoring or drawing groups, it rejects instead of going on', async () => {
    for (const at of ['anchor', 'groups'] as const) {
      const controller = new AbortController();
      const seen: string[] = [];
      const studied = study(['good-2', 'alt-2'], policyAt('v2'), 6, {
        signal: controller.signal,
        onProgress: (phase) => {
          seen.push(phase);
          if (phase === at) controller.abort(new Error('interrupted by SIGINT'));
        },
      });
      await expect(studied).rejects.toThrow(/interrupted/);
      // Nothing after the phase it was interrupted in.
      expect(seen.every((phase) => phase === at || (at === 'groups' && phase === 'anchor'))).toBe(true);
    }
  });
});
