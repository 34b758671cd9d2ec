import type { HarnessSpec, Policy, Task } from '@harness-s/core';
import { Random } from '@harness-s/core';
import { callTool, createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { AdaptiveRouter } from './adaptive-router.js';
import { LexicalIndex } from './lexical.js';
import { buildProfiles, type ProfileSet } from './profiles.js';
import { LlmRanker, ProfileStatsRanker, SimilarTaskRanker } from './rankers.js';

function variant(id: string) {
  const harness = createPlainHarness();
  const spec: HarnessSpec = { ...harness.spec, id, parent: 'plain', direction: id };
  return { ...harness, spec };
}

/** Solves count-N only under harness `good-N`; count-1 under every harness but `bad`. */
const policy: Policy = {
  id: 'test',
  version: 'v1',
  needsPlan: false,
  describe: () => ({}),
  startEpisode(context) {
    const target = Number(context.task.id.split('-')[1]);
    const solves = context.harness.spec.id === `good-${target}` || (target === 1 && context.harness.spec.id !== 'bad');
    let turn = 0;
    return {
      async respond() {
        turn += 1;
        return {
          message: turn === 1 ? callTool('add', { n: solves ? target : 0 }) : callTool('submit'),
          usage: { promptTokens: 1, completionTokens: 1 },
        };
      },
    };
  },
};

async function profiled(): Promise<{ profiles: ProfileSet; tasks: Task[] }> {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const profiles = await buildProfiles({
    environment,
    tasks,
    h0: createPlainHarness(),
    pool: [variant('good-2'), variant('good-3'), variant('bad')],
    policy,
    k: 2,
    seed: 1,
    concurrency: 2,
  });
  return { profiles, tasks };
}

describe('behaviour profiles', () => {
  it('say where a variant helps and where it hurts, against H0, per task and feature', async () => {
    const { profiles } = await profiled();
    expect(profiles.h0.successRate).toBeCloseTo(1 / 3, 12);
    const good2 = profiles.variants.find((profile) => profile.harnessId === 'good-2');
    expect(good2?.helps).toEqual(['count-2']);
    expect(good2?.hurts).toEqual([]);
    expect(profiles.variants.find((profile) => profile.harnessId === 'bad')?.hurts).toEqual(['count-1']);
    expect(good2?.outcomes['count-2']).toEqual({ attempts: 2, successes: 2 });
    expect(good2?.summary).toMatch(/helps on 1 tasks H0 fails, hurts on 0 tasks H0 solves/);
    expect(profiles.policyVersion).toBe('v1');
  });
});

describe('rankers and the adaptive router', () => {
  it('rank the variant that solved similar tasks first, or by overall rates without features', async () => {
    const { profiles, tasks } = await profiled();
    // A new task worded like count-3 (the validation task itself is excluded from its neighbours).
    const task = { ...(tasks[2] as Task), id: 'count-3-again' };
    const candidates = ['plain', 'good-2', 'good-3', 'bad'];
    expect(await new SimilarTaskRanker(1, 1).rank({ task, profiles, candidates })).toEqual([
      'good-3',
      'bad',
      'good-2',
      'plain',
    ]);
    // Laplace-smoothed overall rates: good-2 and good-3 5/8, plain 3/8, bad 1/8; ties by id.
    expect(await new ProfileStatsRanker().rank({ task, profiles, candidates })).toEqual([
      'good-2',
      'good-3',
      'plain',
      'bad',
    ]);
  });

  it('an LLM ranker uses a valid answer, completes a partial one and falls back on nonsense, logging it', async () => {
    const { profiles, tasks } = await profiled();
    const task = { ...(tasks[2] as Task), id: 'count-3-again' };
    const candidates = ['good-2', 'good-3', 'bad'];
    const logged: string[] = [];
    const ranker = (reply: string) =>
      new LlmRanker({
        id: 'llm',
        chat: async () => reply,
        fallback: new SimilarTaskRanker(1, 1),
        onInvalid: (reason) => logged.push(reason),
      });
    expect(await ranker('Sure: {"ranking": ["bad", "good-2", "good-3"]}').rank({ task, profiles, candidates })).toEqual(
      ['bad', 'good-2', 'good-3'],
    );
    expect(logged).toEqual([]);
    expect(await ranker('{"ranking": ["bad"]}').rank({ task, profiles, candidates })).toEqual([
      'bad',
      'good-3',
      'good-2',
    ]);
    expect(await ranker('{"ranking": ["gpt-9"]}').rank({ task, profiles, candidates })).toEqual([
      'good-3',
      'bad',
      'good-2',
    ]);
    expect(await ranker('no idea').rank({ task, profiles, candidates })).toHaveLength(3);
    expect(logged).toHaveLength(3);
    expect(logged[1]).toMatch(/unknown harness ids gpt-9/);
  });

  it('picks distinct variants other than H0 for rescue, fewer when the pool is small, and routes Rank-1', async () => {
    const { profiles, tasks } = await profiled();
    const router = new AdaptiveRouter({ profiles, rankers: [new SimilarTaskRanker(1, 1)] });
    const pool = [variant('good-2'), variant('good-3'), variant('bad')].map((harness) => harness.spec);
    const task3 = { ...(tasks.find((item) => item.id === 'count-3') as Task), id: 'count-3-again' };
    const chosen = await router.select({ task: task3, pool, count: 8, step: 1, random: new Random(1) });
    expect(chosen[0]).toBe('good-3');
    expect(new Set(chosen).size).toBe(3);
    expect(chosen).not.toContain('plain');
    const task2 = { ...(tasks.find((item) => item.id === 'count-2') as Task), id: 'count-2-again' };
    expect(await router.topChoice(task2)).toBe('good-2');
    // Rank-1 routing ranks H0 among the candidates.
    expect(await router.order(task2)).toContain('plain');
  });

  it('anchors profiles before the first step, re-anchors every N steps when adaptive, never when fixed', async () => {
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const context = (step: number) => ({
      step,
      policy,
      environment,
      validationTasks: tasks,
      h0: createPlainHarness(),
      pool: [variant('good-2')],
      seed: 0,
      concurrency: 2,
    });
    for (const [mode, expected] of [
      ['adaptive', 3],
      ['fixed', 1],
    ] as const) {
      const anchors: number[] = [];
      const router = new AdaptiveRouter({
        mode,
        reanchorEvery: 2,
        onAnchor: (profiles) => anchors.push(profiles.anchoredAtStep),
      });
      for (let step = 1; step <= 5; step += 1) await router.beforeStep(context(step));
      expect(anchors).toHaveLength(expected);
      if (mode === 'adaptive') expect(anchors).toEqual([0, 2, 4]);
      const restored = new AdaptiveRouter({ mode });
      restored.restore(router.state());
      expect(restored.currentProfiles?.anchoredAtStep).toBe(anchors.at(-1));
    }
  });
});

describe('LexicalIndex', () => {
  it('finds the closest documents by shared rare words', () => {
    const index = new LexicalIndex([
      { id: 'a', text: 'update the football team results table' },
      { id: 'b', text: 'insert a new swimmer world record' },
      { id: 'c', text: 'how many football matches were played' },
    ]);
    expect(index.nearest('football results for the team', 2).map((entry) => entry.id)).toEqual(['a', 'c']);
    expect(index.nearest('swimmer record', 1, 'b')[0]?.id).not.toBe('b');
  });
});
