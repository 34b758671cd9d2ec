import type { Task } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { counterPolicy } from './__fixtures__/counter-policy.js';
import { handProfiles, variant } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter, type ProfilingProgress } from './adaptive-router.js';
import { chooseProfileTasks } from './profile-tasks.js';
import { carryOverProfiles } from './profiles.js';

/** Tasks of four categories (6, 3, 2 and 1 of them), each of difficulty 1 or 2 in turn. */
const tasks: Task[] = [
  ...['SELECT', 'SELECT', 'INSERT', 'SELECT', 'UPDATE', 'SELECT', 'INSERT', 'SELECT', 'COUNT', 'UPDATE', 'INSERT'],
  'SELECT',
].map((category, index) => ({
  id: `t${index}`,
  env: 'hand',
  split: 'dev',
  instruction: `task ${index}`,
  category,
  difficulty: (index % 2) + 1,
  tags: [],
}));
const categoriesOf = (chosen: readonly Task[]) => chosen.map((task) => task.category);
const countOf = (chosen: readonly Task[], category: string) =>
  chosen.filter((task) => task.category === category).length;

describe('choosing the validation tasks to profile on', () => {
  it('covers every category and difficulty when the count allows it, rare categories first', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const chosen = chooseProfileTasks(tasks, 4, seed);
      expect(new Set(categoriesOf(chosen))).toEqual(new Set(['SELECT', 'INSERT', 'UPDATE', 'COUNT']));
      expect(new Set(chosen.map((task) => task.difficulty))).toEqual(new Set([1, 2]));
    }
  });

  it('starts covering over once every feature is covered, and keeps the split order', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const chosen = chooseProfileTasks(tasks, 7, seed);
      expect(chosen).toHaveLength(7);
      // COUNT has one task; the three other categories twice each.
      expect(['SELECT', 'INSERT', 'UPDATE'].map((category) => countOf(chosen, category))).toEqual([2, 2, 2]);
      expect(countOf(chosen, 'COUNT')).toBe(1);
      const positions = chosen.map((task) => tasks.indexOf(task));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it('repeats for a seed, varies across seeds, and gives every task when asked for as many or more', () => {
    expect(chooseProfileTasks(tasks, 5, 9)).toEqual(chooseProfileTasks(tasks, 5, 9));
    const samples = new Set(
      [1, 2, 3, 4, 5, 6].map((seed) =>
        chooseProfileTasks(tasks, 5, seed)
          .map((t) => t.id)
          .join(),
      ),
    );
    expect(samples.size).toBeGreaterThan(1);
    expect(chooseProfileTasks(tasks, 12, 1)).toEqual(tasks);
    expect(chooseProfileTasks(tasks, 40, 1)).toEqual(tasks);
    // Tasks without features are sampled too, after the ones that add features.
    const plain = tasks.map(({ category: _category, difficulty: _difficulty, ...task }) => task);
    expect(chooseProfileTasks(plain, 3, 1)).toHaveLength(3);
    const mixed: Task[] = [...plain.slice(0, 3), ...tasks.slice(3, 5)];
    expect(chooseProfileTasks(mixed, 3, 1).filter((task) => task.category !== undefined)).toHaveLength(2);
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => chooseProfileTasks(tasks, 0, 1)).toThrow(/number of profile tasks must be a positive integer, got 0/);
    expect(() => chooseProfileTasks(tasks, 2.5, 1)).toThrow(/got 2\.5/);
    expect(() => new AdaptiveRouter({ profileTasks: -1 })).toThrow(/got -1/);
  });
});

describe('profiles anchored on a sample of the validation tasks', () => {
  it('keep only the fresh anchor’s tasks when carrying earlier evidence over', () => {
    const earlier = handProfiles({ h0: { a: 4, b: 0, c: 2 }, v: { a: 4, b: 4, c: 2 } });
    const fresh = handProfiles({ h0: { a: 4 }, v: { a: 2 } });
    const carried = carryOverProfiles(earlier, fresh, 0.5);
    expect(carried.tasks.map((task) => task.id)).toEqual(['a']);
    expect(carried.variants[0]?.outcomes).toEqual({ a: { attempts: 6, successes: 4 } });
    expect(carried.variants[0]?.hurts).toEqual([]);
  });

  it('are anchored on the same sample at every anchoring, with progress per harness', async () => {
    const { environment } = createCounterEnvironment();
    const { tasks: validation } = await environment.loadTasks({});
    const policy = counterPolicy('v1', (target, harnessId) => harnessId === `good-${target}`);
    const progress: ProfilingProgress[] = [];
    const router = new AdaptiveRouter({
      mode: 'adaptive',
      reanchorEvery: 1,
      profileTasks: 2,
      onProfiling: (event) => progress.push(event),
    });
    const context = (step: number) => ({
      step,
      policy,
      environment,
      validationTasks: validation,
      h0: createPlainHarness(),
      pool: [variant('good-2'), variant('good-3')],
      seed: 4,
      concurrency: 2,
    });
    await router.beforeStep(context(1));
    const first = router.currentProfiles?.tasks.map((task) => task.id);
    expect(first).toHaveLength(2);
    expect(Object.keys(router.currentProfiles?.h0.outcomes ?? {})).toEqual(first);
    await router.beforeStep(context(2));
    expect(router.currentProfiles?.tasks.map((task) => task.id)).toEqual(first);
    expect(progress.map(({ done, total, tasks: count, step }) => [done, total, count, step])).toEqual([
      [1, 3, 2, 0],
      [2, 3, 2, 0],
      [3, 3, 2, 0],
      [1, 3, 2, 1],
      [2, 3, 2, 1],
      [3, 3, 2, 1],
    ]);
    expect(progress.slice(0, 3).map((event) => event.harnessId)).toEqual(['plain', 'good-2', 'good-3']);
  });
});
