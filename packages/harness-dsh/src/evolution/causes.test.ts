import type { Action, Trajectory, TurnRecord } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { environmentExtras } from '../variants/extras.js';
import { builtInCauses } from './causes.js';
import { groupIntoDirections } from './directions.js';

type Step = { action: Action; observation: string; error?: string; done?: boolean };
const sql = (query: string, observation = '[]', error?: string): Step => ({
  action: { tool: 'execute_sql', arguments: { query } },
  observation,
  ...(error ? { error } : {}),
});
const commit = (answers: string[]): Step => ({
  action: { tool: 'commit_final_answer', arguments: { answers } },
  observation: 'Your answer has been committed.',
  done: true,
});

function trajectory(
  steps: Array<Step | 'format-error'>,
  options: { stopReason?: Trajectory['stopReason']; check?: string; answer?: string[]; taskId?: string } = {},
): Trajectory {
  const turns: TurnRecord[] = steps.map((step, index) =>
    step === 'format-error'
      ? {
          index,
          response: { content: 'hmm' },
          usage: { promptTokens: 0, completionTokens: 0 },
          latencyMs: 0,
          formatError: 'No tool call found.',
          actions: [],
        }
      : {
          index,
          response: { content: '' },
          usage: { promptTokens: 0, completionTokens: 0 },
          latencyMs: 0,
          actions: [
            {
              action: step.action,
              result: {
                observation: step.observation,
                done: step.done ?? false,
                ...(step.error ? { error: { kind: 'sql-error', message: step.error } } : {}),
              },
              latencyMs: 0,
            },
          ],
        },
  );
  return {
    id: `${options.taskId ?? 'dev-1'}#h0#0`,
    taskId: options.taskId ?? 'dev-1',
    turns,
    stopReason: options.stopReason ?? 'done',
    evaluation: {
      reward: 0,
      success: false,
      checks: [{ name: options.check ?? 'answer', passed: false, detail: 'expected something else' }],
      details: options.answer ? { answer: { kind: 'list', values: options.answer } } : {},
    },
  } as unknown as Trajectory;
}

const causes = (item: Trajectory) => builtInCauses(item, dbbenchH0(), environmentExtras('dbbench'));
const kinds = (item: Trajectory) =>
  causes(item).map((cause) => `${cause.kind}/${cause.direction}/${cause.skill ?? '-'}`);

describe('the built-in failure analyser', () => {
  it('reads a guessed column and giving up after the error', () => {
    const guessed = trajectory([
      sql('SELECT name_x FROM "t"', 'column "name_x" does not exist', 'column "name_x" does not exist'),
      commit([]),
    ]);
    expect(kinds(guessed)).toEqual([
      'skipped-inspection/schema-grounding/inspect-table',
      'gave-up-after-error/error-recovery/recover-from-error',
    ]);
  });

  it('reads an unquoted table name, and no give-up when the agent recovered', () => {
    const unquoted = trajectory([
      sql('SELECT * FROM "Golf Winners" LIMIT 5', "[('a',)]"),
      sql('SELECT COUNT(*) FROM Golf Winners', '', 'syntax error at or near "Winners"'),
      sql('SELECT COUNT(*) FROM "Golf Winners"', '[(3,)]'),
      commit(['3 rows']),
    ]);
    expect(kinds(unquoted)).toEqual(['unquoted-identifier/identifier-quoting/quote-identifiers']);
  });

  it('reads an answer written as a sentence, and an unchecked write', () => {
    const sentence = trajectory([sql('SELECT * FROM "t" LIMIT 5'), commit(['The answer is 7'])], {
      answer: ['The answer is 7'],
    });
    expect(kinds(sentence)).toEqual(['answer-with-words/answer-formatting/answer-format']);
    const unchecked = trajectory([sql('SELECT * FROM "t" LIMIT 5'), sql(`INSERT INTO "t" VALUES ('x')`), commit([])], {
      check: 'table-hash',
    });
    expect(kinds(unchecked)).toEqual(['unverified-write/write-verification/verify-after-write']);
    const checked = trajectory([sql(`INSERT INTO "t" VALUES ('x')`), sql('SELECT * FROM "t"'), commit([])], {
      check: 'table-hash',
    });
    expect(kinds(checked)).toEqual(['wrong-table-state/write-verification/exact-values']);
  });

  it('reads format errors, the step limit, and falls back to the failed checks', () => {
    const looping = trajectory(['format-error', 'format-error', sql('SELECT * FROM "t" LIMIT 5')], {
      stopReason: 'step-limit',
    });
    expect(kinds(looping)).toEqual(['format-error/action-format/action-format', 'step-limit/step-budget/-']);
    const plain = trajectory([sql('SELECT * FROM "t" LIMIT 5'), commit(['7'])], { answer: ['7'] });
    expect(kinds(plain)).toEqual(['failed-check:answer/verification/verify-after-write']);
    const long = trajectory([sql('SELECT * FROM "t"', 'x'.repeat(900)), commit(['7'])], { answer: ['7'] });
    expect(kinds(long)).toEqual(['truncated-observation/context/-']);
  });

  it('finds nothing in a success or an unscored attempt', () => {
    const success = { ...trajectory([commit([])]), evaluation: { reward: 1, success: true, checks: [], details: {} } };
    expect(causes(success as Trajectory)).toEqual([]);
    expect(causes({ ...trajectory([]), evaluation: null } as Trajectory)).toEqual([]);
  });

  it('reads an environment without extras from the generic signals only', () => {
    const item = trajectory([sql('x', '', 'boom'), commit([])], { taskId: 'count-1' });
    const found = builtInCauses(item, dbbenchH0(), environmentExtras('counter')).map(
      (cause) => `${cause.kind}/${cause.direction}`,
    );
    expect(found).toEqual(['unrecovered-error:sql-error/error-recovery']);
  });
});

describe('repair directions', () => {
  it('groups causes by direction, most widespread first', () => {
    const analyses = [
      {
        trajectoryId: 'a#0',
        taskId: 'a',
        analyser: 'built-in',
        causes: [{ kind: 'x', direction: 'd1', skill: 's1', evidence: '' }],
      },
      {
        trajectoryId: 'b#0',
        taskId: 'b',
        analyser: 'built-in',
        causes: [{ kind: 'y', direction: 'd2', evidence: '' }],
      },
      {
        trajectoryId: 'c#0',
        taskId: 'c',
        analyser: 'built-in',
        causes: [
          { kind: 'z', direction: 'd2', skill: 's2', evidence: '' },
          { kind: 'x', direction: 'd1', skill: 's1', evidence: '' },
        ],
      },
      {
        trajectoryId: 'c#1',
        taskId: 'c',
        analyser: 'built-in',
        causes: [{ kind: 'w', direction: 'd3', evidence: '' }],
      },
      {
        trajectoryId: 'd#1',
        taskId: 'd',
        analyser: 'built-in',
        causes: [{ kind: 'w', direction: 'd2', evidence: '' }],
      },
    ];
    expect(groupIntoDirections(analyses)).toEqual([
      { name: 'd2', skills: ['s2'], causes: ['w', 'y', 'z'], tasks: ['b', 'c', 'd'] },
      { name: 'd1', skills: ['s1'], causes: ['x'], tasks: ['a', 'c'] },
      { name: 'd3', skills: [], causes: ['w'], tasks: ['c'] },
    ]);
  });
});
