import { type Action, rightPath } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDbbenchEnvironment } from './environment.js';
import { needsQuoting } from './oracle-plan.js';
import type { DbbenchTask } from './records.js';

const environment = createDbbenchEnvironment();
let tasks: DbbenchTask[] = [];
const task = (id: string): DbbenchTask => {
  const found = tasks.find((item) => item.id === id);
  if (!found) throw new Error(`no task ${id}`);
  return found;
};

/** Runs actions on a fresh episode and returns the observations and the evaluation. */
async function play(id: string, actions: Action[]) {
  const episode = await environment.open(task(id));
  try {
    const observations = [];
    for (const action of actions) observations.push(await episode.step(action));
    return { observations, evaluation: await episode.evaluate() };
  } finally {
    await episode.close();
  }
}

const sql = (query: string): Action => ({ tool: 'execute_sql', arguments: { query } });
const answer = (answers: unknown[]): Action => ({ tool: 'commit_final_answer', arguments: { answers } });

beforeAll(async () => {
  ({ tasks } = await environment.loadTasks({ split: 'dev' }));
});
afterAll(() => environment.close());

describe('DBBench episodes on PGlite', () => {
  it('shows result rows as Python text, and errors as their text', async () => {
    const { observations } = await play('dev-2', [
      sql("SELECT COUNT(*), 1.5::float8, 2.50::numeric, NULL, 'it''s' FROM \"Music Chart History\""),
      sql('SELECT nope FROM "Music Chart History"'),
      sql('INSERT INTO "Music Chart History" SELECT * FROM "Music Chart History" LIMIT 0'),
    ]);
    expect(observations[0]).toEqual({ observation: `[(35, 1.5, Decimal('2.50'), None, "it's")]`, done: false });
    expect(observations[1]?.error?.kind).toBe('sql-error');
    expect(observations[1]?.observation).toMatch(/column "nope" does not exist/);
    expect(observations[2]?.observation).toBe('[]');
  });

  it('scores a question against its label (v0.2): right answer, wrong answer, no answer', async () => {
    expect((await play('dev-0', [answer(['March 19, 1998'])])).evaluation.success).toBe(true);
    const wrong = await play('dev-0', [answer(['The answer is March 19, 1998'])]);
    expect(wrong.evaluation.success).toBe(false);
    expect(wrong.evaluation.checks[0]?.name).toBe('answer');
    const none = await play('dev-0', []);
    expect(none.evaluation.checks[0]?.detail).toBe('no final answer was committed');
  });

  it('scores the raw text answer of the original protocol with Python semantics', async () => {
    const text = (answer_text: string): Action => ({ tool: 'commit_final_answer', arguments: { answer_text } });
    expect((await play('dev-0', [text(' ["March 19, 1998"]')])).evaluation.success).toBe(true);
    // As in AgentBench v0.2: an unquoted answer is not Python, so it is compared as raw text, and
    // the space after "Final Answer:" is part of it.
    expect((await play('dev-0', [text(' March 19, 1998')])).evaluation.success).toBe(false);
    expect((await play('dev-0', [text('March 19, 1998')])).evaluation.success).toBe(true);
    expect((await play('dev-4', [text(' [1]')])).evaluation.success).toBe(true);
    expect((await play('dev-4', [text(' one')])).evaluation.success).toBe(false);
  });

  it('scores a write by the table hash: the gold change passes, a near miss and no change fail', async () => {
    const gold =
      'INSERT INTO "School Location Table" ("School", "Location", "Date moved", "Currently at this location") VALUES (\'Madison High School\', \'San Diego\', \'2022\', \'Yes\')';
    const label = task('dev-20').label[0] ?? '';
    expect(label).toContain("'Madison High School'");
    const oracle = rightPath(environment.oraclePlan(task('dev-20')).nodes);
    const solved = await play('dev-20', oracle);
    expect(solved.evaluation.success).toBe(true);
    expect(solved.evaluation.details['hash']).toMatch(/^[0-9a-f]{32}$/);
    const nothing = await play('dev-20', []);
    expect(nothing.evaluation.success).toBe(false);
    const nearMiss = await play('dev-20', [sql(gold.replace('2022', '2021'))]);
    expect(nearMiss.evaluation.success).toBe(false);
    const dropped = await play('dev-20', [sql('DROP TABLE "School Location Table"')]);
    expect(dropped.evaluation.checks[0]?.detail).toMatch(/the table cannot be read/);
  });

  it('answers bad actions with observations', async () => {
    const { observations } = await play('dev-0', [
      { tool: 'rm_rf', arguments: {} },
      { tool: 'execute_sql', arguments: { query: 42 } },
      { tool: 'commit_final_answer', arguments: { answers: 'x' } },
      { tool: 'commit_final_answer', arguments: { answers: [{ nested: true }] } },
    ]);
    expect(observations.map((item) => item.error?.kind)).toEqual([
      'unknown-tool',
      'bad-arguments',
      'bad-arguments',
      'bad-arguments',
    ]);
    expect(observations.every((item) => !item.done)).toBe(true);
  });

  it('starts every episode from the initial table, whatever the last one did', async () => {
    await play('dev-2', [
      sql('DELETE FROM "Music Chart History"'),
      sql('CREATE TABLE extra (a int)'),
      sql('CREATE SCHEMA sneaky'),
    ]);
    const { observations } = await play('dev-2', [
      sql('SELECT COUNT(*) FROM "Music Chart History"'),
      sql("SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'sneaky'"),
      sql("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'extra'"),
    ]);
    expect(observations.map((item) => item.observation)).toEqual(['[(35,)]', '[(0,)]', '[(0,)]']);
  });
});

describe('oracle plans', () => {
  it('solve every loadable dev task when every right branch is taken', async () => {
    const failures: string[] = [];
    for (const item of tasks) {
      const { evaluation } = await play(item.id, rightPath(environment.oraclePlan(item).nodes));
      if (!evaluation.success)
        failures.push(`${item.id}: ${evaluation.checks.map((check) => check.detail).join('; ')}`);
    }
    expect(failures).toEqual([]);
  });

  it('make wrong branches real mistakes: the unquoted and the mistyped statements fail for real', async () => {
    const write = task('dev-41');
    expect(needsQuoting(write.tableName, 'postgres')).toBe(true);
    const plan = environment.oraclePlan(write);
    const quoting = plan.nodes.find((node) => node.kind === 'decide' && node.skill === 'quote-identifiers');
    if (quoting?.kind !== 'decide') throw new Error('expected a quote-identifiers decision');
    const unquoted = quoting.wrong[0];
    if (unquoted?.kind !== 'act') throw new Error('expected an action');
    const { observations } = await play(write.id, [unquoted.action]);
    expect(observations[0]?.error?.kind).toBe('sql-error');

    const exact = quoting.right.find((node) => node.kind === 'decide' && node.skill === 'exact-values');
    if (exact?.kind !== 'decide') throw new Error('expected an exact-values decision');
    const mistyped = exact.wrong[0];
    if (mistyped?.kind !== 'act') throw new Error('expected an action');
    const withTypo = await play(write.id, [mistyped.action]);
    expect(withTypo.observations[0]?.error).toBeUndefined();
    expect(withTypo.evaluation.success).toBe(false);
    // Noticing it (verify) and repairing it solves the task.
    const verify = exact.wrong[1];
    if (verify?.kind !== 'decide') throw new Error('expected a verify decision');
    const repaired = await play(write.id, [mistyped.action, ...rightPath(verify.right)]);
    expect(repaired.evaluation.success).toBe(true);
  });
});
