import type { PlanNode } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { evaluationProblem, harmlessMistakes } from './src/environment-contract.js';

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
});
