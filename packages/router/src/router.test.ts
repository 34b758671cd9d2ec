import type { AttemptRunner, Task } from '@harness-s/core';
import { InfrastructureError, inProcessRunner, Random } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { counterPolicy, profileCounter } from './__fixtures__/counter-policy.js';
import { handProfiles, selectTask, variant } from './__fixtures__/hand-profiles.js';
import { AdaptiveRouter } from './adaptive-router.js';
import { LexicalIndex } from './lexical.js';
import { buildProfiles, type HarnessProfile } from './profiles.js';
import { credibleGain, LlmRanker, ProfileStatsRanker, pairedGain, SimilarTaskRanker, shrunkRate } from './rankers.js';
import { maxSummaryChars, summarizeProfiles, summaryPrompt } from './summaries.js';

/** Solves count-N only under harness `good-N`; count-1 under every harness but `bad`. */
const policy = counterPolicy(
  'v1',
  (target, harnessId) => harnessId === `good-${target}` || (target === 1 && harnessId !== 'bad'),
);

const profiled = () => profileCounter(policy, [variant('good-2'), variant('good-3'), variant('bad')]);

describe('behaviour profiles', () => {
  it('are refused when no attempt could be run, instead of saying nothing is helped', async () => {
    const { environment } = createCounterEnvironment({ failOpens: 1_000 });
    const { tasks } = await environment.loadTasks({});
    await expect(
      buildProfiles({
        environment,
        tasks,
        h0: createPlainHarness(),
        pool: [variant('good-2')],
        policy,
        k: 1,
        seed: 1,
        concurrency: 2,
      }),
    ).rejects.toThrow(
      /^profiling plain: no attempt could be scored, every try ended in an infrastructure error \(the first: counter service unavailable\)/,
    );
  });

  it('are refused when a variant could not run at all, as when the model server goes down part way', async () => {
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const served = counterPolicy('v1', () => true);
    const failing: typeof served = {
      ...served,
      startEpisode: (context) =>
        context.harness.spec.id === 'good-3'
          ? {
              respond: async () => {
                throw new InfrastructureError('model server http://127.0.0.1:9/v1 is unreachable', {
                  code: 'model-server-unavailable',
                });
              },
            }
          : served.startEpisode(context),
    };
    await expect(
      buildProfiles({
        environment,
        tasks,
        h0: createPlainHarness(),
        pool: [variant('good-2'), variant('good-3')],
        policy: failing,
        k: 1,
        seed: 1,
        concurrency: 2,
      }),
    ).rejects.toMatchObject({
      code: 'every-attempt-lost',
      message: expect.stringMatching(
        /^profiling good-3: no attempt could be scored, every try ended in an infrastructure error \(the first: model server .* is unreachable\)/,
      ),
    });
  });

  it('say where a variant helps and where it hurts, against H0, per task and feature', async () => {
    const { profiles } = await profiled();
    expect(profiles.h0.successRate).toBeCloseTo(1 / 3, 12);
    const good2 = profiles.variants.find((profile) => profile.harnessId === 'good-2');
    expect(good2?.helps).toEqual(['count-2']);
    expect(good2?.hurts).toEqual([]);
    expect(profiles.variants.find((profile) => profile.harnessId === 'bad')?.hurts).toEqual(['count-1']);
    expect(good2?.outcomes['count-2']).toEqual({ attempts: 2, successes: 2 });
    expect(good2?.summary).toMatch(/helps on 1 task H0 fails, hurts on 0 tasks H0 solves/);
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
    // good-2 solves one of the three validation tasks H0 fails: a gain of 1/3 within its error
    // (sd 0.577 / sqrt 3), so Rank-1 keeps H0.
    expect(pairedGain(task2, profiles, 'good-2')).toBeCloseTo(1 / 3, 12);
    expect(credibleGain(task2, profiles, 'good-2')).toBeCloseTo(0, 12);
    expect(await router.topChoice(task2)).toBe('plain');
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
    // On a run's attempt runner (its workers), the profiling attempts go there, under ids of their own.
    const ids: string[] = [];
    const inner = inProcessRunner(2);
    let running = 0;
    let mostAtOnce = 0;
    const runner: AttemptRunner = {
      id: 'recording',
      run: async (batch) => {
        ids.push(...batch.requests.map((request) => request.attemptId));
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        try {
          return await inner.run(batch);
        } finally {
          running -= 1;
        }
      },
    };
    const [here, there] = [new AdaptiveRouter({ mode: 'fixed' }), new AdaptiveRouter({ mode: 'fixed' })];
    await here.beforeStep(context(1));
    await there.beforeStep({ ...context(1), runner });
    const { createdAt: _a, ...profiled } = here.currentProfiles ?? {};
    const { createdAt: _b, ...profiledThere } = there.currentProfiles ?? {};
    expect(profiledThere).toEqual(profiled);
    expect(ids).toHaveLength(2 * tasks.length * 2);
    expect(ids.filter((id) => id.startsWith('profile-0-plain:'))).toHaveLength(tasks.length * 2);
    expect(ids.filter((id) => id.startsWith('profile-0-good-2:'))).toHaveLength(tasks.length * 2);
    // Every harness's attempts are handed over at once: workers are not left idle between two.
    expect(mostAtOnce).toBe(2);
    // The first batch that fails stops the others, and its error is the one reported.
    let stopped = false;
    const failing: AttemptRunner = {
      id: 'failing',
      run: (batch) =>
        batch.requests[0]?.harness.spec.id === 'good-2'
          ? Promise.reject(new Error('the queue is gone'))
          : new Promise((_resolve, reject) =>
              batch.signal?.addEventListener('abort', () => {
                stopped = true;
                reject(batch.signal?.reason);
              }),
            ),
    };
    await expect(new AdaptiveRouter({ mode: 'fixed' }).beforeStep({ ...context(1), runner: failing })).rejects.toThrow(
      'the queue is gone',
    );
    expect(stopped).toBe(true);
    // An interrupted run stops re-anchoring at its signal, and the router keeps its last profiles.
    const router = new AdaptiveRouter({ mode: 'adaptive', reanchorEvery: 1 });
    await router.beforeStep(context(1));
    const interrupted = AbortSignal.abort(new Error('interrupted by SIGINT'));
    await expect(router.beforeStep({ ...context(2), signal: interrupted })).rejects.toThrow(/interrupted/);
    expect(router.currentProfiles?.anchoredAtStep).toBe(0);
  });
});

describe('rescue ranking and Rank-1 routing', () => {
  // H0 solves a and b, fails c. `broad` does well where H0 already does; `narrow` solves c.
  const profiles = handProfiles({
    h0: { a: 4, b: 4, c: 0 },
    broad: { a: 4, b: 4, c: 0 },
    narrow: { a: 1, b: 1, c: 3 },
  });

  it('ranks for rescue by success on the validation tasks H0 fails, for routing on all of them', async () => {
    const ranker = new ProfileStatsRanker();
    const request = { task: selectTask('new'), profiles, candidates: ['broad', 'narrow'] };
    // Priors over all three tasks: broad (8+1)/(12+2) = 9/14, narrow (5+1)/(12+2) = 6/14.
    // Route: every task counts, broad (8 + 2 * 9/14)/(12 + 2) = 0.66 vs narrow (5 + 2 * 6/14)/14 = 0.42.
    expect(await ranker.rank(request)).toEqual(['broad', 'narrow']);
    // Rescue: only c counts (H0's failure rate 1 there, 0 on a and b): broad (0 + 2 * 9/14)/(4 + 2) = 0.21,
    // narrow (3 + 2 * 6/14)/6 = 0.64.
    expect(await ranker.rank({ ...request, purpose: 'rescue' })).toEqual(['narrow', 'broad']);
  });

  it('shrinks thin rescue evidence toward the harness rate on all the similar tasks', () => {
    // H0 fails only d, where neither variant succeeded in its 2 attempts: the rescue evidence is
    // a tie, and the rates on all four tasks decide: (0 + 2 * (6+1)/(8+2))/(2 + 2) = 0.35 vs
    // (0 + 2 * (0+1)/(8+2))/(2 + 2) = 0.05.
    const outcome = (successes: number) => ({ attempts: 2, successes });
    const strong = [outcome(2), outcome(2), outcome(2), outcome(0)];
    const weak = [outcome(0), outcome(0), outcome(0), outcome(0)];
    const h0Failure = [0, 0, 0, 1];
    const evidence = (outcomes: typeof strong) =>
      outcomes.map((item, index) => ({ outcome: item, base: 1, weight: h0Failure[index] ?? 0 }));
    expect(shrunkRate(evidence(strong))).toBeCloseTo(0.35, 12);
    expect(shrunkRate(evidence(weak))).toBeCloseTo(0.05, 12);
    // Plenty of rescue evidence outweighs the prior: 10 of 10 where H0 fails, despite 0 of 30 elsewhere.
    const thick = [
      { outcome: { attempts: 30, successes: 0 }, base: 1, weight: 0 },
      { outcome: { attempts: 10, successes: 10 }, base: 1, weight: 1 },
    ];
    expect(shrunkRate(thick)).toBeGreaterThan(0.8);
  });

  it('rescue weights fall back to every task alike when H0 failed none of them', async () => {
    const solvedEverywhere = handProfiles({ h0: { a: 4, b: 4 }, broad: { a: 4, b: 3 }, narrow: { a: 0, b: 1 } });
    const request = { task: selectTask('new'), profiles: solvedEverywhere, candidates: ['narrow', 'broad'] };
    expect(await new ProfileStatsRanker().rank({ ...request, purpose: 'rescue' })).toEqual(['broad', 'narrow']);
  });

  it('the rescue set follows the rescue ranking, and Rank-1 leaves H0 only for a variant with a paired gain', async () => {
    const router = new AdaptiveRouter({ profiles, rankers: [new ProfileStatsRanker()], mode: 'fixed' });
    const pool = ['broad', 'narrow'].map((id) => variant(id).spec);
    const request = { task: selectTask('new'), pool, count: 1, step: 1, random: new Random(1) };
    expect(await router.select(request)).toEqual(['narrow']);
    // The vote ties H0 and broad at the top (same outcomes); broad gains nothing over H0, so H0 stays.
    expect(pairedGain(selectTask('new'), profiles, 'broad')).toBe(0);
    // narrow: (1/4 - 1 + 1/4 - 1 + 3/4 - 0) / 3 = -0.25: worse than H0 on these tasks.
    expect(pairedGain(selectTask('new'), profiles, 'narrow')).toBeCloseTo(-0.25, 12);
    expect(await router.topChoice(selectTask('new'))).toBe('h0');
    const better = handProfiles({
      h0: { a: 2, b: 4, c: 0 },
      broad: { a: 4, b: 4, c: 1 },
      narrow: { a: 0, b: 0, c: 4 },
    });
    const routed = new AdaptiveRouter({ profiles: better, rankers: [new ProfileStatsRanker()], mode: 'fixed' });
    // broad: differences 1/2, 0, 1/4; mean 1/4, sample sd 1/4, standard error 1/4 / sqrt 3.
    expect(credibleGain(selectTask('new'), better, 'broad')).toBeCloseTo(0.25 - 0.25 / Math.sqrt(3), 12);
    expect(await routed.topChoice(selectTask('new'))).toBe('broad');
    // Only the harnesses at hand: without broad, narrow's gain is (0 - 0.5 + 0 - 1 + 1 - 0) / 3 < 0: H0.
    expect(await routed.topChoice(selectTask('new'), ['narrow'])).toBe('h0');
  });

  it('Rank-1 does not leave H0 for a gain within the noise of the validation tasks', async () => {
    // lucky succeeds where H0 does, and on c in 2 of 4 attempts: differences 0, 0, 1/2, a gain of
    // 1/6 whose standard error is also 1/6. steady gains 1/4 on two tasks of three.
    const noisy = handProfiles({
      h0: { a: 4, b: 3, c: 0 },
      lucky: { a: 4, b: 3, c: 2 },
      steady: { a: 4, b: 4, c: 1 },
    });
    const task = selectTask('new');
    expect(pairedGain(task, noisy, 'lucky')).toBeCloseTo(1 / 6, 12);
    expect(credibleGain(task, noisy, 'lucky')).toBeCloseTo(0, 12);
    const router = new AdaptiveRouter({ profiles: noisy, rankers: [new ProfileStatsRanker()], mode: 'fixed' });
    expect(await router.topChoice(task, ['lucky'])).toBe('h0');
    // steady: differences 0, 1/4, 1/4; the same mean 1/6, but sd 1/sqrt 48 and error 1/12: credible.
    expect(credibleGain(task, noisy, 'steady')).toBeCloseTo(1 / 6 - 1 / 12, 12);
    expect(await router.topChoice(task, ['steady'])).toBe('steady');
  });
});

describe('profile summaries written by a chat model', () => {
  const profiles = handProfiles({
    h0: { a: 4, b: 0 },
    fixer: { a: 4, b: 3 },
    noisy: { a: 1, b: 0 },
    silent: { a: 4, b: 0 },
  });

  it('replace the template where the answer is a short plain paragraph; keep it, reported, otherwise', async () => {
    const replies: Record<string, string | Error> = {
      fixer: '  Helps on select tasks\nthat H0 fails. ',
      noisy: '{"summary": "json instead"}',
      silent: new Error('connection refused'),
    };
    const prompts: string[] = [];
    const invalid: string[] = [];
    const summarized = await summarizeProfiles(profiles, {
      writer: 'llm:writer',
      chat: async (messages) => {
        const content = messages[0]?.content ?? '';
        prompts.push(content);
        const id = /Harness: (\S+)/.exec(content)?.[1] ?? '';
        const reply = replies[id];
        if (reply instanceof Error) throw reply;
        return reply ?? '';
      },
      onInvalid: (id, reason) => invalid.push(`${id}: ${reason}`),
    });
    const byId = Object.fromEntries(summarized.variants.map((profile) => [profile.harnessId, profile]));
    expect(byId['fixer']).toMatchObject({ summary: 'Helps on select tasks that H0 fails.', summaryBy: 'llm:writer' });
    expect(byId['noisy']).toMatchObject({ summary: 'noisy', summaryBy: 'template' });
    expect(byId['silent']).toMatchObject({ summary: 'silent', summaryBy: 'template' });
    expect(invalid.sort()).toEqual(['noisy: answer is not plain text', 'silent: request failed: connection refused']);
    expect(summarized.h0.summaryBy).toBe('template');
    expect(prompts).toHaveLength(3);
    expect(summaryPrompt(profiles.variants[0] as HarnessProfile, profiles)).toMatch(/category=select: 50% vs H0 50%/);
  });

  it('a reply longer than the limit is not a summary', async () => {
    const invalid: string[] = [];
    const summarized = await summarizeProfiles(profiles, {
      writer: 'llm:writer',
      chat: async () => 'x'.repeat(maxSummaryChars + 1),
      onInvalid: (_, reason) => invalid.push(reason),
    });
    expect(summarized.variants.every((profile) => profile.summaryBy === 'template')).toBe(true);
    expect(invalid[0]).toBe(`answer of ${maxSummaryChars + 1} characters (at most ${maxSummaryChars})`);
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
