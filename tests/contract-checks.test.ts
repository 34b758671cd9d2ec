import type { Action, Harness, PlanNode } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import {
  codecMismatches,
  describeDecisions,
  evaluationProblem,
  harmlessMistakes,
  noTaskLoaded,
  planWalks,
  repeatedIds,
  walkProblem,
} from './src/environment-contract.js';

const act = (tool: string): PlanNode => ({ kind: 'act', action: { tool, arguments: {} } });
const tools = (walk: { actions: Array<{ tool: string }> }) => walk.actions.map((action) => action.tool).join(' ');

describe("the environment contract's checks", () => {
  it('name a decision point whose mistake does what the right branch does, however deep', () => {
    const plan: PlanNode[] = [
      { kind: 'decide', skill: 'real-mistake', right: [act('look')], wrong: [] },
      {
        kind: 'decide',
        skill: 'outer',
        right: [act('a'), { kind: 'decide', skill: 'no-mistake', right: [act('b')], wrong: [act('b')] }],
        wrong: [act('c')],
      },
    ];
    expect(harmlessMistakes(plan)).toEqual(['no-mistake']);
  });

  it("say what breaks the Evaluation schema, in the schema's words", () => {
    expect(evaluationProblem({ reward: 1, success: true, checks: [] })).toBe('');
    expect(evaluationProblem({ reward: 5, success: true, checks: [] })).toMatch(/reward/);
    expect(evaluationProblem({ reward: 0, checks: [] })).toMatch(/success/);
  });

  it("name the actions a harness's codec does not give back as they went in", () => {
    const plain = createPlainHarness();
    const tools = [{ name: 'add', description: 'Add n.', parameters: { type: 'object', properties: {} } }];
    const actions = [{ tool: 'add', arguments: { n: 2 } }];
    expect(codecMismatches(plain, actions, tools)).toEqual([]);
    // A codec that drops the arguments on the way out.
    const lossy: Harness = {
      ...plain,
      codec: {
        ...plain.codec,
        encode: (encoded) => plain.codec.encode(encoded.map(({ tool }) => ({ tool, arguments: {} }))),
      },
    };
    expect(codecMismatches(lossy, actions, tools)).toEqual([
      `${plain.spec.id}: {"tool":"add","arguments":{"n":2}} came back as [{"tool":"add","arguments":{}}]`,
    ]);
  });

  it('walk a plan every decision right, every decision wrong, and each decision wrong in turn', () => {
    // `outer` wrong leads to `recover`, which can be taken wrong only with `outer` wrong.
    const plan: PlanNode[] = [
      {
        kind: 'decide',
        skill: 'outer',
        right: [act('look')],
        wrong: [act('guess'), { kind: 'decide', skill: 'recover', right: [act('look')], wrong: [] }],
      },
      { kind: 'decide', skill: 'answer', right: [act('submit')], wrong: [act('stop')] },
    ];
    const walks = planWalks(plan).map((walk) => `${walk.name} [${describeDecisions(walk)}]: ${tools(walk)}`);
    expect(walks).toEqual([
      'every decision right [outer right, answer right]: look submit',
      'every decision wrong [outer wrong, recover wrong, answer wrong]: guess stop',
      'only decision point 1 of 3 (outer) wrong [outer wrong, recover right, answer right]: guess look submit',
      'only decision point 2 of 3 (recover) wrong [outer wrong, recover wrong, answer right]: guess submit',
      'only decision point 3 of 3 (answer) wrong [outer right, answer wrong]: look stop',
    ]);
  });

  it('leave out walks that do the same actions as an earlier one', () => {
    const plan: PlanNode[] = [{ kind: 'decide', skill: 'only', right: [act('a')], wrong: [act('b')] }, act('submit')];
    expect(planWalks(plan).map((walk) => walk.name)).toEqual(['every decision right', 'every decision wrong']);
    expect(planWalks([act('submit')]).map((walk) => describeDecisions(walk))).toEqual(['no decisions']);
  });

  it('say how a walk fails to end its episode: out of plan, past a step limit, a step that threw', async () => {
    const { environment } = createCounterEnvironment();
    const [task] = (await environment.loadTasks({})).tasks;
    if (!task) throw new Error('the counter environment has tasks');
    const add: Action = { tool: 'add', arguments: { n: 1 } };
    const submit: Action = { tool: 'submit', arguments: {} };
    const problem = async (actions: Action[], stepLimit?: { harness: string; maxSteps: number }) => {
      const episode = await environment.open(task);
      try {
        return await walkProblem(episode, { actions }, stepLimit);
      } finally {
        await episode.close();
      }
    };
    expect(await problem([add, submit])).toBe('');
    expect(await problem([add, submit, add])).toBe('');
    expect(await problem([add, add])).toBe(
      'the plan ran out after 2 actions (the last add) and the environment never said done; a policy walking it would stop at its format-error limit',
    );
    expect(await problem([])).toBe('the walk has no actions, so nothing ends the episode');
    expect(await problem([add, add, submit], { harness: 'h0', maxSteps: 3 })).toBe('');
    expect(await problem([add, add, add, submit], { harness: 'h0', maxSteps: 3 })).toBe(
      "the environment said done only at action 4, past harness h0's step limit of 3",
    );
    const broken = await environment.open(task);
    const throwing = {
      ...broken,
      step: async () => {
        throw new Error('engine gone');
      },
    };
    expect(await walkProblem(throwing, { actions: [add] })).toBe('action 1 (add) threw: engine gone');
    await broken.close();
  });

  it('list a repeated id once, with its count', () => {
    expect(repeatedIds(['a', 'b', 'a', 'c', 'a', 'b'])).toEqual(['a (3 times)', 'b (2 times)']);
    expect(repeatedIds(['a', 'b'])).toEqual([]);
  });

  it('say where no task loaded from and why each record could not load', () => {
    expect(noTaskLoaded({ split: 'dev' }, [{ id: 'x', reason: 'no target' }])).toBe(
      "no task loaded from split 'dev'; 1 unloadable: x: no target",
    );
    expect(noTaskLoaded({ file: 'tasks.jsonl' }, [])).toBe(
      'no task loaded from file tasks.jsonl; the environment reported no unloadable records either',
    );
    const many = Array.from({ length: 12 }, (_, index) => ({ id: `t${index}`, reason: 'bad' }));
    expect(noTaskLoaded({ split: 'dev' }, many)).toMatch(
      /^no task loaded from split 'dev'; 12 unloadable: t0: bad; .*t9: bad; and 2 more$/,
    );
  });
});
