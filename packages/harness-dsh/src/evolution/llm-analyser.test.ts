import type { Trajectory } from '@harness-s/core';
import { createScriptedPolicy } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { createHarness } from '../harness.js';
import { createLlmAnalyser } from './llm-analyser.js';
import { createLlmProposer } from './llm-proposer.js';

const skills = [
  { name: 'inspect-table', description: 'look at the table first' },
  { name: 'recover-from-error', description: 'fix a failed statement' },
];
const harness = createHarness(dbbenchH0());
const failed = {
  id: 'dev-3#h0#0',
  taskId: 'dev-3',
  messages: [
    { role: 'system', content: 'system' },
    { role: 'user', content: 'How many skyscrapers?' },
  ],
  turns: [
    {
      index: 0,
      response: { content: '' },
      usage: { promptTokens: 0, completionTokens: 0 },
      latencyMs: 0,
      actions: [
        {
          action: { tool: 'execute_sql', arguments: { query: 'SELECT rank_name FROM "t"' } },
          result: {
            observation: 'column "rank_name" does not exist',
            done: false,
            error: { kind: 'sql-error', message: 'column "rank_name" does not exist' },
          },
          latencyMs: 0,
        },
      ],
    },
  ],
  stopReason: 'done',
  evaluation: {
    reward: 0,
    success: false,
    checks: [{ name: 'answer', passed: false, detail: '[] vs ["26"]' }],
    details: {},
  },
} as unknown as Trajectory;

const answer = (content: string) => createScriptedPolicy([{ role: 'assistant', content }]);

describe('the LLM failure analyser', () => {
  it('uses a valid answer, fenced or bare, and shows the model the trajectory', async () => {
    const policy = answer(
      'Here it is:\n```json\n{"causes": [{"kind": "guessed-column", "direction": "schema-grounding", "skill": "inspect-table", "evidence": "turn 0"}]}\n```',
    );
    const analysis = await createLlmAnalyser({ policy, harness, skills }).analyse(failed, dbbenchH0());
    expect(analysis).toEqual({
      trajectoryId: 'dev-3#h0#0',
      taskId: 'dev-3',
      analyser: 'llm:scripted',
      causes: [{ kind: 'guessed-column', direction: 'schema-grounding', skill: 'inspect-table', evidence: 'turn 0' }],
    });
    const asked = policy.requests[0]?.messages.at(-1)?.content ?? '';
    expect(asked).toContain('How many skyscrapers?');
    expect(asked).toContain('ERROR sql-error: column "rank_name" does not exist');
    expect(policy.requests[0]?.messages[0]?.content).toContain('inspect-table (look at the table first)');
  });

  it.each([
    ['not JSON at all', 'I think the agent was confused.', /no JSON object/],
    ['JSON that does not parse', '{"causes": [}', /does not parse/],
    [
      'a skill the environment does not have',
      '{"causes": [{"kind": "k", "direction": "d", "skill": "fly", "evidence": "e"}]}',
      /causes\.0\.skill: must be one of/,
    ],
    ['no causes', '{"causes": []}', /causes: /],
    ['extra fields', '{"causes": [{"kind": "k", "direction": "d", "evidence": "e", "confidence": 0.9}]}', /causes\.0/],
  ])('falls back to the built-in analyser on %s, and logs why', async (_case, content, reason) => {
    const lines: string[] = [];
    const analysis = await createLlmAnalyser({
      policy: answer(content),
      harness,
      skills,
      log: (line) => lines.push(line),
    }).analyse(failed, dbbenchH0());
    expect(analysis.analyser).toBe('built-in (fallback)');
    expect(analysis.causes.map((cause) => cause.kind)).toEqual(['skipped-inspection', 'gave-up-after-error']);
    expect(lines).toEqual([expect.stringMatching(reason)]);
    expect(lines[0]).toContain('dev-3#h0#0');
  });

  it('refuses a policy that is not a chat model, by falling back', async () => {
    const lines: string[] = [];
    const notChat = { ...answer('{}'), needsPlan: 'oracle' as const };
    const analysis = await createLlmAnalyser({
      policy: notChat,
      harness,
      skills,
      log: (line) => lines.push(line),
    }).analyse(failed, dbbenchH0());
    expect(analysis.analyser).toBe('built-in (fallback)');
    expect(lines[0]).toMatch(/not a chat model/);
  });
});

describe('the LLM change proposer', () => {
  const direction = {
    name: 'schema-grounding',
    skills: ['inspect-table'],
    causes: ['skipped-inspection'],
    tasks: ['dev-3'],
  };

  it('turns a valid proposal into patch operations', async () => {
    const policy = answer(
      JSON.stringify({
        changes: [
          {
            description: 'look first',
            directives: [{ text: 'Look at the table first.', skill: 'inspect-table' }],
            transforms: ['schema-lookup'],
          },
          { description: 'more steps', execution: { maxSteps: 20 } },
        ],
      }),
    );
    const changes = await createLlmProposer({ policy, harness, skills }).propose(dbbenchH0(), direction, [
      'failure text',
    ]);
    expect(changes.map((change) => change.operations.map((operation) => operation.op))).toEqual([
      ['add-directive', 'add-tool-transform', 'add-directive'],
      ['set-execution'],
    ]);
    expect(changes[0]?.operations[1]).toEqual({
      op: 'add-tool-transform',
      transform: { kind: 'schema-lookup', options: {}, skill: 'inspect-table' },
    });
    expect(
      changes.every((change) => change.operator === 'llm-proposer' && change.direction === 'schema-grounding'),
    ).toBe(true);
    expect(policy.requests[0]?.messages.at(-1)?.content).toContain('failure text');
  });

  it('proposes nothing for an answer outside the schema, and logs why', async () => {
    const lines: string[] = [];
    const policy = answer('{"changes": [{"description": "x", "transforms": ["teleport"]}]}');
    const changes = await createLlmProposer({ policy, harness, skills, log: (line) => lines.push(line) }).propose(
      dbbenchH0(),
      direction,
      [],
    );
    expect(changes).toEqual([]);
    expect(lines).toEqual([
      expect.stringMatching(/changes\.0\.transforms\.0: must be one of schema-lookup, check-after-write/),
    ]);
  });
});
