import { Random, type Task, type Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { counterPolicy, profileCounter } from './__fixtures__/counter-policy.js';
import { variant } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter } from './adaptive-router.js';
import { carryOverProfiles, type ProfileSet } from './profiles.js';
import { LlmRanker, nearestByFailures, SimilarFailureRanker, SimilarTaskRanker } from './rankers.js';
import { type Diagnose, failureSignatures, signatureSimilarity } from './signatures.js';

/** count-2 fails for want of `carry`, count-3 for want of `order`; `fix-carry` and `fix-order` supply them. */
const policy = counterPolicy(
  'v1',
  (target, harnessId) =>
    target === 1 || (target === 2 && harnessId === 'fix-carry') || (target === 3 && harnessId === 'fix-order'),
);
const causeOf: Record<string, string> = { 'count-2': 'carry', 'count-3': 'order' };
/** A diagnosis that reads the cause from the failed attempt's task, as a failure analysis would from its trace. */
const diagnose: Diagnose = async (trajectory) => [causeOf[trajectory.taskId] ?? 'other'];
const pool = [variant('fix-carry'), variant('fix-order'), variant('neither')];

const profiled = (withDiagnosis = true) => profileCounter(policy, pool, withDiagnosis ? diagnose : undefined);

const failedAttempt = (taskId: string, success = false) =>
  ({
    id: `${taskId}#${Math.random()}`,
    taskId,
    evaluation: { success, reward: 0, checks: [] },
  }) as unknown as Trajectory;

describe('failure signatures', () => {
  it('count each signature once per failed attempt, per task; successes and infrastructure errors say nothing', async () => {
    const twice: Diagnose = async (trajectory) => ['a', 'a', trajectory.taskId === 't1' ? 'b' : 'c'];
    const unscored = { ...failedAttempt('t1'), evaluation: null } as unknown as Trajectory;
    const counts = await failureSignatures(
      [failedAttempt('t1'), failedAttempt('t1'), failedAttempt('t1', true), unscored, failedAttempt('t2')],
      twice,
    );
    expect(Object.fromEntries(counts)).toEqual({ t1: { a: 2, b: 2 }, t2: { a: 1, c: 1 } });
  });

  it('compare by cosine similarity of their counts', () => {
    // (3, 4) against (1, 0): 3 / 5.
    expect(signatureSimilarity({ x: 3, y: 4 }, { x: 1 })).toBeCloseTo(0.6, 12);
    expect(signatureSimilarity({ x: 2 }, { x: 5 })).toBeCloseTo(1, 12);
    expect(signatureSimilarity({ x: 2 }, { y: 5 })).toBe(0);
    expect(signatureSimilarity({ x: 2 }, {})).toBe(0);
    expect(signatureSimilarity({ x: 2 }, undefined)).toBe(0);
  });

  it("are recorded in the profiles: how H0's attempts failed each validation task", async () => {
    const { profiles } = await profiled();
    expect(Object.fromEntries(profiles.tasks.map((task) => [task.id, task.h0Failures]))).toEqual({
      'count-1': {},
      'count-2': { carry: 2 },
      'count-3': { order: 2 },
    });
    expect((await profiled(false)).profiles.tasks.every((task) => task.h0Failures === undefined)).toBe(true);
  });

  it('carry over to a re-anchoring at the discount, so a task the policy has since learned keeps how H0 failed it', async () => {
    const { profiles } = await profiled();
    const learned: ProfileSet = {
      ...profiles,
      tasks: profiles.tasks.map((task) => ({
        ...task,
        h0Failures: task.id === 'count-3' ? { order: 1 } : ({} as Record<string, number>),
      })),
    };
    const carried = carryOverProfiles(profiles, learned, 0.5);
    expect(Object.fromEntries(carried.tasks.map((task) => [task.id, task.h0Failures]))).toEqual({
      'count-1': {},
      'count-2': { carry: 1 },
      'count-3': { order: 2 },
    });
  });
});

describe('the similar-failure ranker', () => {
  it('ranks first what rescued the validation tasks H0 failed the same way, whatever the wording', async () => {
    const { profiles, tasks } = await profiled();
    // Worded like count-3, but failing as count-2 did.
    const task = { ...(tasks[2] as Task), id: 'new-task' };
    const candidates = ['fix-carry', 'fix-order', 'neither'];
    const ranker = new SimilarFailureRanker();
    const request = { task, profiles, candidates, purpose: 'rescue' as const };
    expect(await ranker.rank({ ...request, failures: { carry: 8 } })).toEqual(['fix-carry', 'fix-order', 'neither']);
    expect(await ranker.rank({ ...request, failures: { order: 6, other: 2 } })).toEqual([
      'fix-order',
      'fix-carry',
      'neither',
    ]);
    // The text ranker goes by the wording alone.
    expect((await new SimilarTaskRanker(1, 1).rank(request))[0]).toBe('fix-order');
  });

  it('sits the vote out without failures to read or profiles that recorded none', async () => {
    const { profiles, tasks } = await profiled();
    const task = { ...(tasks[1] as Task), id: 'new-task' };
    const ranker = new SimilarFailureRanker();
    const request = { task, profiles, candidates: ['fix-carry'], purpose: 'rescue' as const };
    expect(ranker.appliesTo({ ...request, failures: { carry: 2 } })).toBe(true);
    expect(ranker.appliesTo(request)).toBe(false);
    expect(ranker.appliesTo({ ...request, failures: {} })).toBe(false);
    // No validation task failed that way: nothing to go on, and no ranking to vote with.
    expect(ranker.appliesTo({ ...request, failures: { quoting: 3 } })).toBe(false);
    expect(await ranker.rank({ ...request, failures: { quoting: 3 } })).toEqual([]);
    // The task itself is never its own neighbour.
    expect(ranker.appliesTo({ ...request, task: tasks[1] as Task, failures: { carry: 2 } })).toBe(false);
    const blind = (await profiled(false)).profiles;
    expect(ranker.appliesTo({ ...request, profiles: blind, failures: { carry: 2 } })).toBe(false);
  });

  it('takes every task tied with the last neighbour, nearest first', () => {
    const tasks: Array<{ id: string; h0Failures: Record<string, number> }> = [
      { id: 't-c', h0Failures: { carry: 1 } },
      { id: 't-a', h0Failures: { carry: 4 } },
      { id: 't-b', h0Failures: { carry: 1, order: 1 } },
      { id: 't-d', h0Failures: { order: 2 } },
    ];
    // t-a and t-c both at similarity 1: one neighbour asked, both kept.
    expect(nearestByFailures({ carry: 2 }, tasks, 1).map(({ id }) => id)).toEqual(['t-a', 't-c']);
    const three = nearestByFailures({ carry: 2 }, tasks, 3);
    expect(three.map(({ id }) => id)).toEqual(['t-a', 't-c', 't-b']);
    expect(three[2]?.similarity).toBeCloseTo(Math.SQRT1_2, 12);
    expect(nearestByFailures({ carry: 2 }, tasks, 5, 't-a').map(({ id }) => id)).toEqual(['t-c', 't-b']);
  });

  it('turns the adaptive router toward the failure a rescue request shows', async () => {
    const { profiles, tasks } = await profiled();
    const task = { ...(tasks[2] as Task), id: 'new-task' };
    const request = (failures: Trajectory[]) => ({
      task,
      pool: pool.map((harness) => harness.spec),
      count: 1,
      step: 1,
      random: new Random(1),
      failures,
    });
    // Its K attempts under H0 failed as count-2's do.
    const failures = [failedAttempt('count-2'), failedAttempt('count-2')];
    const rankers = [new SimilarTaskRanker(1, 1), new SimilarFailureRanker(2)];
    const reading = new AdaptiveRouter({ profiles, mode: 'fixed', diagnose, rankers });
    expect(await reading.select(request(failures))).toEqual(['fix-carry']);
    // The same rankers without a diagnosis: the failure ranker has nothing to go on, the wording decides.
    const blind = new AdaptiveRouter({ profiles, mode: 'fixed', rankers });
    expect(await blind.select(request(failures))).toEqual(['fix-order']);
    // With a diagnosis and no rankers named, the similar-failure ranker joins the default two.
    expect(new AdaptiveRouter({ profiles, diagnose }).rankers.map((ranker) => ranker.id)).toEqual([
      'profile-stats',
      'similar-tasks',
      'similar-failures',
    ]);
  });

  it('an LLM ranker is told how the attempts under H0 failed, most frequent first', async () => {
    const { profiles, tasks } = await profiled();
    const prompts: string[] = [];
    const ranker = new LlmRanker({
      id: 'llm',
      chat: async (messages) => {
        prompts.push(messages[0]?.content ?? '');
        return '{"ranking": ["fix-carry", "fix-order"]}';
      },
    });
    const request = {
      task: tasks[1] as Task,
      profiles,
      candidates: ['fix-carry', 'fix-order'],
      purpose: 'rescue' as const,
    };
    await ranker.rank({ ...request, failures: { other: 2, carry: 8, about: 2 } });
    await ranker.rank(request);
    expect(prompts[0]).toContain(
      'How those attempts failed (repair direction: attempts): carry: 8, about: 2, other: 2',
    );
    expect(prompts[1]).not.toContain('How those attempts failed');
  });
});
