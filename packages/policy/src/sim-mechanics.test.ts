import type { Action, EpisodeContext, Harness, HarnessSpec, Message, OraclePlan, PlanNode } from '@harness-s/core';
import { createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { actionFormatSkill, fixReaches, localityShift, SimulatedPolicy, sigmoid } from './sim-policy.js';

const add = (n: number): PlanNode => ({ kind: 'act', action: { tool: 'add', arguments: { n } } });
const decide = (skill: string, right: PlanNode[], wrong: PlanNode[]): PlanNode => ({
  kind: 'decide',
  skill,
  right,
  wrong,
});
const task = { id: 't', env: 'counter', split: 'dev', instruction: 'Count.', tags: [] };

/** A plain tool-calls harness with the given spec changes. */
function harness(change: (spec: HarnessSpec) => HarnessSpec = (spec) => spec): Harness {
  const plain = createPlainHarness();
  return { ...plain, spec: change(plain.spec) };
}

const withDirectives = (...directives: Array<{ id: string; skill?: string }>) =>
  harness((spec) => ({
    ...spec,
    prompt: {
      ...spec.prompt,
      directives: directives.map((item) => ({ ...item, text: `Rule ${item.id}.`, direction: 'd' })),
    },
  }));

/** The system prompt a harness with these directives renders. */
const system = (h: Harness): Message => ({
  role: 'system',
  content: `You are a test agent.\nRules:\n${h.spec.prompt.directives.map((item) => `- ${item.text}`).join('\n')}`,
});

function session(h: Harness, nodes: PlanNode[], seed = 1, config = {}) {
  const policy = new SimulatedPolicy({ actionFormatTheta: 50, theta: { a: 0, b: 0 }, ...config });
  const plan: OraclePlan = { taskId: 't', nodes };
  const context: EpisodeContext = { task, harness: h, envTools: [], seed, plan };
  return policy.startEpisode(context);
}

const decisionsOf = async (h: Harness, nodes: PlanNode[], messages: Message[], seed = 1, config = {}) =>
  (await session(h, nodes, seed, config).respond({ messages, tools: [] })).decisions ?? [];

describe('simulated harness mechanics', () => {
  it('crowds a skill without a directive by every directive in the system prompt, but not a cued one', async () => {
    const h = withDirectives({ id: 'x', skill: 'a' }, { id: 'y', skill: 'c' }, { id: 'z' });
    const messages = [system(h), { role: 'user' as const, content: 'Count.' }];
    const config = { directiveCue: 1.5, directiveCrowding: 0.3 };
    const [, onB] = await decisionsOf(h, [decide('b', [add(1)], [add(2)])], messages, 1, config);
    expect(onB).toMatchObject({
      skill: 'b',
      cue: expect.closeTo(-0.9, 12),
      probability: expect.closeTo(sigmoid(-0.9), 12),
    });
    const [, onA] = await decisionsOf(h, [decide('a', [add(1)], [add(2)])], messages, 1, config);
    expect(onA).toMatchObject({ skill: 'a', cue: 1.5 });
    // The format decision is a skill too, and is crowded the same way.
    const [format] = await decisionsOf(h, [add(1)], messages, 1, config);
    expect(format).toMatchObject({ skill: actionFormatSkill, cue: expect.closeTo(-0.9, 12) });
    // A directive not rendered into the context neither cues nor crowds.
    const [, unseen] = await decisionsOf(
      h,
      [decide('b', [add(1)], [add(2)])],
      [{ role: 'system', content: 'plain' }],
      1,
      config,
    );
    expect(unseen?.cue).toBe(0);
  });

  it('leaves a skill a tool transform performs to the harness, and does not repeat what the harness already ran', async () => {
    const h = harness((spec) => ({ ...spec, tools: [{ kind: 'lookup', options: {}, skill: 'a' }] }));
    const nodes = [decide('a', [add(1), add(5)], [add(2)]), add(7)];
    // The harness already ran add(1) for the policy before its first turn.
    const prelude = h.codec.encode([{ tool: 'add', arguments: { n: 1 } }]);
    const messages: Message[] = [
      { role: 'user', content: 'Count.' },
      prelude,
      { role: 'tool', toolCallId: 'call_0', content: 'counter = 1' },
    ];
    const run = session(h, nodes);
    const first = await run.respond({ messages, tools: [] });
    // The policy drew only its turn's format; the transform's choice is recorded as the harness's.
    expect(first.decisions?.filter((decision) => !decision.byHarness).map((decision) => decision.skill)).toEqual([
      actionFormatSkill,
    ]);
    expect(first.decisions?.filter((decision) => decision.byHarness)).toEqual([
      { skill: 'a', right: true, probability: 1, cue: 0, byHarness: true },
    ]);
    const called = (message: Message): Action | undefined =>
      message.role === 'assistant'
        ? (h.codec.decode(message, []) as { actions: Array<{ action: Action }> }).actions?.[0]?.action
        : undefined;
    expect(called(first.message)).toEqual({ tool: 'add', arguments: { n: 5 } });
    const second = await run.respond({ messages: [...messages, first.message], tools: [] });
    expect(called(second.message)).toEqual({ tool: 'add', arguments: { n: 7 } });
  });

  it('draws a failed decision a second time when the retry message follows its last turn', async () => {
    const h = harness((spec) => ({
      ...spec,
      execution: { ...spec.execution, retryOnError: { message: 'Retry it.' } },
    }));
    const nodes = [decide('a', [add(1)], [add(2)])];
    const before: Message[] = [
      { role: 'user', content: 'Count.' },
      { role: 'assistant', content: 'x' },
      { role: 'tool', toolCallId: 'c', content: 'error' },
    ];
    let secondDraws = 0;
    let rescued = 0;
    for (let seed = 0; seed < 200; seed += 1) {
      const plain = (await decisionsOf(h, nodes, before, seed)).filter((decision) => decision.skill === 'a');
      const retried = (await decisionsOf(h, nodes, [...before, { role: 'user', content: 'Retry it.' }], seed)).filter(
        (decision) => decision.skill === 'a',
      );
      expect(plain).toHaveLength(1);
      // Paired draws: the first draw is the same with or without the message.
      expect(retried[0]).toEqual(plain[0]);
      if (retried.length === 2) {
        secondDraws += 1;
        expect(retried[0]?.right).toBe(false);
        if (retried[1]?.right) rescued += 1;
      } else expect(retried[0]?.right).toBe(true);
    }
    expect(secondDraws).toBeGreaterThan(60);
    expect(rescued / secondDraws).toBeGreaterThan(0.3);
    expect(rescued / secondDraws).toBeLessThan(0.7);
  });

  it('takes a cue from the verification reminder when it is in view, without crowding others', async () => {
    const h = harness((spec) => ({
      ...spec,
      execution: { ...spec.execution, verifyAfterChange: { message: 'Check the change.', skill: 'a' } },
    }));
    const messages: Message[] = [
      { role: 'system', content: 'plain' },
      { role: 'user', content: 'Check the change.' },
    ];
    const [format, onA] = await decisionsOf(h, [decide('a', [add(1)], [add(2)])], messages, 1, { directiveCue: 2 });
    expect(onA?.cue).toBe(2);
    expect(format?.cue).toBe(0);
  });

  it('meets the same random numbers under every harness: a cue only turns wrong decisions right', async () => {
    const cued = withDirectives({ id: 'x', skill: 'a' });
    const nodes = [decide('a', [add(1)], [add(2)])];
    for (let seed = 0; seed < 100; seed += 1) {
      const [, plain] = await decisionsOf(harness(), nodes, [{ role: 'user', content: 'Count.' }], seed);
      const [, withCue] = await decisionsOf(cued, nodes, [system(cued)], seed);
      if (plain?.right) expect(withCue?.right).toBe(true);
    }
  });

  it('reads checkpoints written before crowding existed with the default', () => {
    const { directiveCrowding: _dropped, ...old } = new SimulatedPolicy().config;
    expect(new SimulatedPolicy(old).config.directiveCrowding).toBe(0.3);
  });
});

describe('locality of a derived harness', () => {
  const derived = (id: string) => harness((spec) => ({ ...spec, id, parent: 'h0', direction: 'd' }));
  const nodes = [decide('a', [add(1)], [add(2)])];
  const messages: Message[] = [{ role: 'user', content: 'Count.' }];

  it('shifts each skill by a persistent amount per task and harness; a base harness is not shifted', async () => {
    const expected = localityShift('t', 'v-1', 'a', 1);
    expect(Math.abs(expected)).toBeGreaterThan(0);
    for (const seed of [1, 2, 3]) {
      const [format, onA] = await decisionsOf(derived('v-1'), nodes, messages, seed, { localitySpread: 1 });
      expect(onA).toMatchObject({ skill: 'a', cue: expected, probability: expect.closeTo(sigmoid(expected), 12) });
      // The format decision is the policy's own writing, not a reading of the task.
      expect(format?.cue).toBe(0);
    }
    const [, other] = await decisionsOf(derived('v-2'), nodes, messages, 1, { localitySpread: 1 });
    expect(other?.cue).toBe(localityShift('t', 'v-2', 'a', 1));
    expect(other?.cue).not.toBe(expected);
    const [, base] = await decisionsOf(harness(), nodes, messages, 1, { localitySpread: 1 });
    expect(base?.cue).toBe(0);
    const [, none] = await decisionsOf(derived('v-1'), nodes, messages, 1, { localitySpread: 0 });
    expect(none?.cue).toBe(0);
  });

  it('draws the shifts from a normal distribution scaled by the spread', () => {
    const shifts = Array.from({ length: 4000 }, (_, index) => localityShift(`task-${index}`, 'v', 'a', 1));
    const mean = shifts.reduce((sum, shift) => sum + shift, 0) / shifts.length;
    const sd = Math.sqrt(shifts.reduce((sum, shift) => sum + (shift - mean) ** 2, 0) / shifts.length);
    expect(Math.abs(mean)).toBeLessThan(0.06);
    expect(sd).toBeGreaterThan(0.95);
    expect(sd).toBeLessThan(1.05);
    // About 68% within one standard deviation, as for a normal distribution.
    expect(shifts.filter((shift) => Math.abs(shift) < 1).length / shifts.length).toBeCloseTo(0.683, 1);
    expect(localityShift('task-1', 'v', 'a', 2.5)).toBeCloseTo(2.5 * localityShift('task-1', 'v', 'a', 1), 12);
  });
});

describe('hardness of a decision point', () => {
  it('lowers the logit by the plan node hardness and records it', async () => {
    const hard: PlanNode = { kind: 'decide', skill: 'a', right: [add(1)], wrong: [add(2)], hardness: 1.5 };
    const [, decision] = await decisionsOf(harness(), [hard], [{ role: 'user', content: 'Count.' }]);
    expect(decision).toMatchObject({ skill: 'a', hardness: 1.5, probability: expect.closeTo(sigmoid(-1.5), 12) });
    const [, easy] = await decisionsOf(
      harness(),
      [decide('a', [add(1)], [add(2)])],
      [{ role: 'user', content: 'Count.' }],
    );
    expect(easy).not.toHaveProperty('hardness');
  });
});

describe('reach of a harness fix on hard instances', () => {
  const hard = (skill: string): PlanNode => ({ kind: 'decide', skill, right: [add(1)], wrong: [add(2)], hardness: 2 });
  /** The decisions of a first turn on task 't' with the harness's rules in view. */
  const cuedOn = (h: Harness, nodes: PlanNode[], config: object) =>
    session(h, nodes, 1, config)
      .respond({ messages: [system(h)], tools: [] })
      .then((response) => response.decisions ?? []);
  const reachedTasks = (harnessId: string, reach: number) =>
    Array.from({ length: 2000 }, (_, index) => fixReaches(`task-${index}`, harnessId, 'a', reach)).filter(Boolean)
      .length / 2000;

  it('cues a hard decision only where the fix reaches the task; easy ones always', async () => {
    const h = withDirectives({ id: 'x', skill: 'a' });
    const reached = fixReaches('t', h.spec.id, 'a', 0.5);
    const config = { hardFixReach: 0.5 };
    for (let seed = 1; seed <= 3; seed += 1) {
      const [, onHard] = await cuedOn(h, [hard('a')], config);
      expect(onHard?.cue).toBe(reached ? 4 : 0);
    }
    const [, onEasy] = await cuedOn(h, [decide('a', [add(1)], [add(2)])], config);
    expect(onEasy?.cue).toBe(4);
    // Reach 1, the default, reaches every task.
    const [, always] = await cuedOn(h, [hard('a')], {});
    expect(always?.cue).toBe(4);
  });

  it('leaves a hard decision to the policy where the tool transform does not reach the task', async () => {
    const withTool = (id: string) =>
      harness((spec) => ({ ...spec, id, tools: [{ kind: 'lookup', options: {}, skill: 'a' }] }));
    // Harness ids whose fix reaches task 't', and ones whose fix does not.
    const ids = Array.from({ length: 40 }, (_, index) => `v-${index}`);
    const reaching = ids.filter((id) => fixReaches('t', id, 'a', 0.5));
    const missing = ids.filter((id) => !fixReaches('t', id, 'a', 0.5));
    expect(reaching.length).toBeGreaterThan(5);
    expect(missing.length).toBeGreaterThan(5);
    for (const id of [reaching[0], missing[0]] as string[]) {
      const decisions = await cuedOn(withTool(id), [hard('a')], { hardFixReach: 0.5 });
      const onA = decisions.filter((decision) => decision.skill === 'a');
      expect(onA).toHaveLength(1);
      expect(onA[0]?.byHarness ?? false).toBe(reaching.includes(id));
    }
  });

  it('reaches about the given share of tasks, each harness its own', () => {
    expect(reachedTasks('v-1', 0.3)).toBeCloseTo(0.3, 1);
    expect(reachedTasks('v-1', 0.7)).toBeCloseTo(0.7, 1);
    expect(reachedTasks('v-1', 1)).toBe(1);
    const a = Array.from({ length: 200 }, (_, index) => fixReaches(`task-${index}`, 'v-1', 'a', 0.5));
    const b = Array.from({ length: 200 }, (_, index) => fixReaches(`task-${index}`, 'v-2', 'a', 0.5));
    expect(a.filter((value, index) => value !== b[index]).length).toBeGreaterThan(60);
  });
});
