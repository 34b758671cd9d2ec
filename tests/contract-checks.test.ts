import type { Harness, PlanNode } from '@harness-s/core';
import { createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { codecMismatches, evaluationProblem, harmlessMistakes } from './src/environment-contract.js';

const act = (tool: string): PlanNode => ({ kind: 'act', action: { tool, arguments: {} } });

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
});
