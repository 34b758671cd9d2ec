import { type Action, type OraclePlan, type PlanNode, type SkillDescription, withHardness } from '@harness-s/core';
import type { SqlDialect } from './backend.js';
import { translateMysqlToPostgres } from './mysql-dialect.js';
import type { DbbenchTask } from './records.js';
import { quoteIdentifier } from './table-ddl.js';
import { dbbenchHardness } from './task-hardness.js';

/** The skills DBBench's decision points name. */
export const dbbenchSkills: readonly SkillDescription[] = [
  { name: 'inspect-table', description: 'look at the table (its columns and a few rows) before querying it' },
  { name: 'quote-identifiers', description: "quote table and column names as the engine's dialect requires" },
  { name: 'recover-from-error', description: 'after an SQL error, fix the statement instead of giving up' },
  { name: 'answer-format', description: 'commit exactly the values asked for, as a list, with no extra words' },
  { name: 'exact-values', description: 'write values exactly as the task gives them' },
  { name: 'verify-after-write', description: 'check the table after a write and repair what is wrong' },
];

const act = (action: Action, thought?: string): PlanNode => ({ kind: 'act', action, ...(thought ? { thought } : {}) });
const decide = (skill: string, right: PlanNode[], wrong: PlanNode[]): PlanNode => ({
  kind: 'decide',
  skill,
  right,
  wrong,
});
const sql = (query: string, thought?: string): PlanNode => act({ tool: 'execute_sql', arguments: { query } }, thought);
const commit = (answers: string[], thought?: string): PlanNode =>
  act({ tool: 'commit_final_answer', arguments: { answers } }, thought);

/** Whether a bare (unquoted) name fails in the dialect: it must be quoted to be found at all. */
export function needsQuoting(name: string, dialect: SqlDialect): boolean {
  // PostgreSQL folds bare names to lower case, so any upper-case letter already breaks them;
  // MySQL is case-insensitive, so only characters outside a bare identifier do.
  return dialect === 'postgres' ? !/^[a-z_][a-z0-9_]*$/.test(name) : !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(name);
}

/** The gold SQL of a write task, made to run on the dialect (see docs/sql-translation.md). */
export function goldSql(task: DbbenchTask, dialect: SqlDialect): string {
  const gold = task.label[0] ?? '';
  if (dialect === 'mysql') return gold;
  return translateMysqlToPostgres(gold, { table: task.tableName, columns: task.columns }).sql;
}

/** A column name that does not exist in the table, in the style an agent that never looked would guess. */
function guessedColumn(task: DbbenchTask): string {
  const first = (task.columns[0] ?? 'value')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const taken = new Set(task.columns.map((column) => column.toLowerCase()));
  let guess = `${first || 'value'}_name`;
  while (taken.has(guess)) guess = `${guess}_x`;
  return guess;
}

/**
 * The opening of every plan: look at the table, or skip that and query a guessed column, which
 * fails; then recover (look at the table) or give up with `giveUp`.
 */
function inspectStep(task: DbbenchTask, dialect: SqlDialect, giveUp: PlanNode): PlanNode {
  const table = quoteIdentifier(dialect, task.tableName);
  const look = sql(`SELECT * FROM ${table} LIMIT 5`, 'Let me look at the table first.');
  return decide(
    'inspect-table',
    [look],
    [
      sql(`SELECT ${guessedColumn(task)} FROM ${table}`, 'I will query the column directly.'),
      decide('recover-from-error', [look], [giveUp]),
    ],
  );
}

/** Forgetting to quote the table name (only where that really fails), then recovering or giving up. */
function quoteStep(
  task: DbbenchTask,
  dialect: SqlDialect,
  rightQuery: string,
  wrongQuery: string,
  giveUp: PlanNode,
): PlanNode[] {
  if (!needsQuoting(task.tableName, dialect)) return [sql(rightQuery)];
  return [
    decide(
      'quote-identifiers',
      [sql(rightQuery)],
      [sql(wrongQuery), decide('recover-from-error', [sql(rightQuery, 'The name needs quoting.')], [giveUp])],
    ),
  ];
}

/** Finds the first string literal after `keyword` in `statement`; returns its bounds and text. */
function firstStringLiteral(statement: string, keyword: RegExp): { start: number; end: number; text: string } | null {
  const anchor = keyword.exec(statement);
  if (!anchor) return null;
  const start = statement.indexOf("'", anchor.index + anchor[0].length);
  if (start < 0) return null;
  // Only plain literals without escapes are mutated, which is enough to make a realistic typo.
  const match = /^'([^'\\]*)'/.exec(statement.slice(start));
  if (!match || match[1] === undefined) return null;
  return { start, end: start + match[0].length, text: match[1] };
}

/** A realistic typo: the last character dropped (or one added to a one-character value). */
const typo = (value: string): string => (value.length >= 2 ? value.slice(0, -1) : `${value}x`);

/**
 * The write with one value mistyped, and the statements that repair it once noticed, or null when
 * the task offers no safe place for such a mistake.
 */
function mistypedWrite(
  task: DbbenchTask,
  dialect: SqlDialect,
  gold: string,
): { write: string; repair: string[] } | null {
  const table = quoteIdentifier(dialect, task.tableName);
  if (/^\s*update\b/i.test(gold)) {
    const literal = firstStringLiteral(gold, /\bSET\b/i);
    const where = /\bWHERE\b([\s\S]*)$/i.exec(gold)?.[1] ?? '';
    const assigned = /\bSET\s+[`"]?([^`"=]+?)[`"]?\s*=/i.exec(gold)?.[1]?.trim().toLowerCase();
    // Re-running the gold UPDATE repairs the typo only if its WHERE does not read the mistyped column.
    if (!literal || !assigned || where.toLowerCase().includes(assigned)) return null;
    const write = `${gold.slice(0, literal.start)}'${typo(literal.text)}'${gold.slice(literal.end)}`;
    return { write, repair: [gold] };
  }
  if (/^\s*insert\b/i.test(gold)) {
    const values = /\bVALUES\s*\(\s*/i.exec(gold);
    if (!values || gold[values.index + values[0].length] !== "'") return null;
    const literal = firstStringLiteral(gold, /\bVALUES\s*\(\s*/i);
    if (!literal) return null;
    const listed = /INSERT\s+INTO\s+(?:`[^`]+`|"[^"]+"|\S+)\s*\(([^)]*)\)\s*VALUES/i.exec(gold)?.[1];
    const firstName = listed
      ? listed
          .split(',')[0]
          ?.trim()
          .replace(/^[`"]|[`"]$/g, '')
      : task.columns[0];
    const column = task.columns.find((name) => name.toLowerCase() === firstName?.toLowerCase());
    if (!column) return null;
    const mistyped = typo(literal.text);
    // The typo must not match a row that was already there, or the repair would delete it too.
    if (task.rows.some((row) => row[task.columns.indexOf(column)]?.toLowerCase() === mistyped.toLowerCase()))
      return null;
    const write = `${gold.slice(0, literal.start)}'${mistyped}'${gold.slice(literal.end)}`;
    const remove = `DELETE FROM ${table} WHERE ${quoteIdentifier(dialect, column)} = '${mistyped}'`;
    return { write, repair: [remove, gold] };
  }
  return null;
}

/** The statement with its table name unquoted: the "forgot to quote" mistake. */
function unquotedTable(statement: string, task: DbbenchTask, dialect: SqlDialect): string {
  return statement
    .replaceAll(quoteIdentifier(dialect, task.tableName), task.tableName)
    .replaceAll(`\`${task.tableName}\``, task.tableName);
}

/**
 * A DBBench task's oracle plan: questions answer the label; writes run the gold SQL, then commit.
 * Decision points carry the task's hardness (see `dbbenchHardness`).
 */
export function dbbenchOraclePlan(task: DbbenchTask, dialect: SqlDialect): OraclePlan {
  return withHardness(planOf(task, dialect), dbbenchHardness(task));
}

function planOf(task: DbbenchTask, dialect: SqlDialect): OraclePlan {
  const table = quoteIdentifier(dialect, task.tableName);
  if (task.kind === 'question') {
    const giveUp = commit([], 'I could not find the answer.');
    const count = `SELECT COUNT(*) FROM ${table}`;
    return {
      taskId: task.id,
      nodes: [
        inspectStep(task, dialect, giveUp),
        ...quoteStep(task, dialect, count, `SELECT COUNT(*) FROM ${task.tableName}`, giveUp),
        decide(
          'answer-format',
          [commit(task.label, 'I have the answer.')],
          [commit([`The answer is ${task.label.join(', ')}`], 'I have the answer.')],
        ),
      ],
    };
  }

  const gold = goldSql(task, dialect);
  const giveUp = commit([], 'I could not make the change.');
  const done = commit([], 'The change is done.');
  const look = sql(`SELECT * FROM ${table}`, 'Let me check the table after the write.');
  const mistake = mistypedWrite(task, dialect, gold);
  const writeNodes: PlanNode[] = mistake
    ? [
        decide(
          'exact-values',
          [sql(gold), decide('verify-after-write', [look], [])],
          [
            sql(mistake.write),
            decide(
              'verify-after-write',
              [look, ...mistake.repair.map((statement) => sql(statement, 'A value is wrong; fixing it.'))],
              [],
            ),
          ],
        ),
      ]
    : [sql(gold), decide('verify-after-write', [look], [])];
  const [firstWrite, ...restWrite] = writeNodes;
  const withQuoting: PlanNode[] =
    needsQuoting(task.tableName, dialect) && firstWrite
      ? [
          decide('quote-identifiers', writeNodes, [
            sql(unquotedTable(gold, task, dialect)),
            decide('recover-from-error', writeNodes, [giveUp]),
          ]),
        ]
      : [firstWrite, ...restWrite].filter((node): node is PlanNode => node !== undefined);
  return { taskId: task.id, nodes: [inspectStep(task, dialect, giveUp), ...withQuoting, done] };
}
