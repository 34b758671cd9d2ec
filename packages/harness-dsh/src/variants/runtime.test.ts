import type { Action, ExecutedAction, HarnessSpec, StepResult, Task } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { createHarness } from '../harness.js';

const task = {
  id: 'dev-1',
  env: 'dbbench',
  split: 'dev',
  instruction: 'How many rows?\nThe database is PostgreSQL: quote table and column names with double quotes.',
  tags: [],
  tableName: 'Golf "Winners"',
} as Task;
const sql = (query: string): Action => ({ tool: 'execute_sql', arguments: { query } });
const ok = (observation: string): StepResult => ({ observation, done: false });

function variant(patch: Partial<HarnessSpec>): HarnessSpec {
  return { ...dbbenchH0(), id: 'v-test', parent: 'h0', direction: 'test', ...patch };
}

describe('tool transforms in the harness runtime', () => {
  it('looks at the table before the first turn, quoted in the dialect the task names', () => {
    const harness = createHarness(variant({ tools: [{ kind: 'schema-lookup', options: {}, skill: 'inspect-table' }] }));
    const prelude = harness.prelude?.(task, []);
    expect(prelude?.actions).toEqual([
      { action: sql('SELECT * FROM "Golf ""Winners""" LIMIT 5'), callId: 'harness_0' },
    ]);
    expect(prelude?.message.toolCalls?.[0]).toMatchObject({ id: 'harness_0', name: 'execute_sql' });
    const mysqlTask = { ...task, instruction: 'How many rows?' };
    expect(harness.prelude?.(mysqlTask, [])?.actions[0]?.action).toEqual(sql('SELECT * FROM `Golf "Winners"` LIMIT 5'));
    expect(createHarness(dbbenchH0()).prelude).toBeUndefined();
  });

  it('expands a write into the write and a look at the written table, answered as one tool message', () => {
    const harness = createHarness(
      variant({ tools: [{ kind: 'check-after-write', options: {}, skill: 'verify-after-write' }] }),
    );
    const write = harness.codec.encode([sql(`UPDATE "t" SET "a" = 'x' WHERE "b" = 'y'`)]);
    const decoded = harness.codec.decode(write, []);
    expect(decoded.ok && decoded.actions.map((item) => [item.action.arguments['query'], item.callId])).toEqual([
      [`UPDATE "t" SET "a" = 'x' WHERE "b" = 'y'`, 'call_0'],
      ['SELECT * FROM "t"', 'call_0'],
    ]);
    const read = harness.codec.decode(harness.codec.encode([sql('SELECT * FROM "t"')]), []);
    expect(read.ok && read.actions).toHaveLength(1);
    // A bare name with spaces is not a table name the wrapper can use.
    const unquoted = harness.codec.decode(harness.codec.encode([sql('INSERT INTO Golf Winners ("a") VALUES (1)')]), []);
    expect(unquoted.ok && unquoted.actions).toHaveLength(1);

    if (!decoded.ok) throw new Error('decode failed');
    const executed: ExecutedAction[] = decoded.actions.map((item, index) => ({
      ...item,
      result: ok(index ? "[('x',)]" : '[]'),
    }));
    const messages = harness.observe(executed);
    expect(messages).toEqual([
      {
        role: 'tool',
        toolCallId: 'call_0',
        content: `[]\n[check-after-write: execute_sql {"query":"SELECT * FROM \\"t\\""}]\n[('x',)]`,
      },
    ]);
  });

  it('adds the retry message after a failed action and the reminder after a change', () => {
    const harness = createHarness(
      variant({
        execution: {
          maxSteps: 15,
          maxFormatErrors: 3,
          retryOnError: { message: 'Retry with a fix.' },
          verifyAfterChange: { message: 'Check your change.', skill: 'verify-after-write' },
        },
      }),
    );
    const failed: ExecutedAction = {
      action: sql('SELECT nope FROM "t"'),
      callId: 'c',
      result: { observation: 'column "nope" does not exist', done: false, error: { kind: 'sql-error', message: 'x' } },
    };
    expect(harness.observe([failed]).at(-1)).toEqual({ role: 'user', content: 'Retry with a fix.' });
    const change: ExecutedAction = { action: sql('DELETE FROM "t"'), callId: 'c', result: ok('[]') };
    expect(harness.observe([change]).at(-1)).toEqual({ role: 'user', content: 'Check your change.' });
    const read: ExecutedAction = { action: sql('SELECT 1'), callId: 'c', result: ok('[(1,)]') };
    expect(harness.observe([read])).toHaveLength(1);
  });

  it('elides old observations to a summary when the context rules ask for one', () => {
    const harness = createHarness(
      variant({
        context: { maxObservationChars: null, truncationMarker: '', keepLastObservations: 1, elidedSummaryChars: 5 },
      }),
    );
    const rendered = harness.render([
      { role: 'system', content: 's' },
      { role: 'user', content: 'task' },
      { role: 'user', content: 'first observation' },
      { role: 'user', content: 'second observation' },
    ]);
    expect(rendered[2]?.content).toBe('[earlier observation elided] first...');
    expect(rendered[3]?.content).toBe('second observation');
  });

  it('refuses transforms and rules it cannot run, naming the field', () => {
    expect(() => createHarness(variant({ tools: [{ kind: 'paginate', options: {} }] }))).toThrow(
      /tools\.0\.kind: unknown tool transform 'paginate' for environment 'dbbench'; known: schema-lookup, check-after-write/,
    );
    expect(() =>
      createHarness(variant({ tools: [{ kind: 'schema-lookup', options: {}, skill: 'answer-format' }] })),
    ).toThrow(/tools\.0\.skill: transform 'schema-lookup' performs 'inspect-table'/);
    const counter = { ...variant({}), env: 'counter' };
    expect(() =>
      createHarness({ ...counter, execution: { ...counter.execution, verifyAfterChange: { message: 'check' } } }),
    ).toThrow(/execution\.verifyAfterChange: the harness cannot tell which actions of 'counter' change its state/);
  });
});
