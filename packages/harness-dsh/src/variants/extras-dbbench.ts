import type { Action, Task, Trajectory } from '@harness-s/core';
import type { EnvironmentExtras, FailureSignal, ToolTransform } from './extras-types.js';

const writeStatement = /^\s*(insert|update|delete|replace|create|alter|drop|truncate)\b/i;
/** A table name as the statement writes it: quoted ("..." or `...`) or bare. */
const tableToken = String.raw`("(?:[^"]|"")+"|\`(?:[^\`]|\`\`)+\`|[^\s(;]+)`;
// The table token must be followed by what comes after a table name, so an unquoted name with
// spaces (a statement that fails anyway) is not mistaken for a shorter table.
const writeTarget = new RegExp(
  String.raw`^\s*(?:insert\s+into|update|delete\s+from|replace\s+into)\s+${tableToken}(?=\s*(?:\(|set\b|where\b|values\b|select\b|;|$))`,
  'i',
);

const query = (action: Action): string | null =>
  action.tool === 'execute_sql' && typeof action.arguments['query'] === 'string' ? action.arguments['query'] : null;

/**
 * The table of a DBBench task, quoted in the dialect the task names: the instruction says when
 * the engine is PostgreSQL (double quotes); otherwise it is AgentBench's MySQL (backticks). The
 * harness reads what a model would read.
 */
function quotedTable(task: Task): string | null {
  const name = (task as Task & { tableName?: unknown }).tableName;
  if (typeof name !== 'string' || name === '') return null;
  return /PostgreSQL/.test(task.instruction) ? `"${name.replaceAll('"', '""')}"` : `\`${name.replaceAll('`', '``')}\``;
}

/** Looks at the first rows of the table before the policy's first turn. */
const schemaLookup: ToolTransform = {
  kind: 'schema-lookup',
  skill: 'inspect-table',
  direction: 'schema-grounding',
  description: 'runs SELECT * FROM the table LIMIT n before the first turn, so the columns are known',
  note: 'Before your first action the harness shows you the first rows of the table.',
  emits: ['execute_sql'],
  prelude(task, options) {
    const table = quotedTable(task);
    const rows = typeof options['rows'] === 'number' ? options['rows'] : 5;
    if (!table) return null;
    return {
      actions: [{ tool: 'execute_sql', arguments: { query: `SELECT * FROM ${table} LIMIT ${rows}` } }],
      thought: 'Let me look at the table first.',
    };
  },
};

/** After every write, selects the written table, so the result of the change is in view. */
const checkAfterWrite: ToolTransform = {
  kind: 'check-after-write',
  skill: 'verify-after-write',
  direction: 'write-verification',
  description: 'follows every INSERT, UPDATE or DELETE with SELECT * FROM the same table',
  note: 'After each change to a table the harness shows you the whole table, so you can check the change.',
  emits: ['execute_sql'],
  expand(action) {
    const statement = query(action);
    const table = statement ? writeTarget.exec(statement)?.[1] : undefined;
    if (!table) return null;
    return [action, { tool: 'execute_sql', arguments: { query: `SELECT * FROM ${table}` } }];
  },
};

const isSelectAll = (statement: string): boolean => /^\s*select\s+\*\s+from\b/i.test(statement);
const unquotedTarget = (statement: string): boolean => /\b(from|into|update)\s+(?!["`(])/i.test(statement);

/** Failure signals DBBench trajectories show: errors of guessed columns or unquoted names, giving up, answers with words, unchecked writes. */
function dbbenchFailureSignals(trajectory: Trajectory): FailureSignal[] {
  const signals: FailureSignal[] = [];
  const actions = trajectory.turns.flatMap((turn) => turn.actions.map((record) => ({ turn: turn.index, ...record })));
  let inspected = false;
  let lastErrorIndex = -1;
  let lastWriteIndex = -1;
  actions.forEach((record, index) => {
    const statement = query(record.action);
    const error = record.result.error;
    if (statement && !error && isSelectAll(statement)) inspected = true;
    if (statement && !error && writeStatement.test(statement)) lastWriteIndex = index;
    if (!error) return;
    lastErrorIndex = index;
    const evidence = `turn ${record.turn}: ${error.message.slice(0, 120)}`;
    if (/column .* does not exist|unknown column/i.test(error.message) && !inspected) {
      signals.push({ kind: 'skipped-inspection', skill: 'inspect-table', evidence });
    } else if (
      statement &&
      /syntax error|relation .* does not exist|doesn't exist/i.test(error.message) &&
      unquotedTarget(statement)
    ) {
      signals.push({ kind: 'unquoted-identifier', skill: 'quote-identifiers', evidence });
    }
  });
  if (lastErrorIndex >= 0) {
    const recovered = actions.slice(lastErrorIndex + 1).some((record) => query(record.action) && !record.result.error);
    if (!recovered) {
      signals.push({
        kind: 'gave-up-after-error',
        skill: 'recover-from-error',
        evidence: `no successful statement after the error at turn ${actions[lastErrorIndex]?.turn}`,
      });
    }
  }
  const checks = trajectory.evaluation?.checks ?? [];
  const answer = trajectory.evaluation?.details['answer'] as {
    kind?: string;
    values?: unknown[];
    text?: string;
  } | null;
  const committed = answer?.kind === 'list' ? (answer.values ?? []).map(String) : answer?.text ? [answer.text] : [];
  if (
    checks.some((check) => check.name === 'answer' && !check.passed) &&
    committed.some((value) => /\banswer\b|\bis\b/i.test(value))
  ) {
    signals.push({
      kind: 'answer-with-words',
      skill: 'answer-format',
      evidence: `committed ${JSON.stringify(committed).slice(0, 120)}`,
    });
  }
  if (checks.some((check) => check.name === 'table-hash' && !check.passed) && lastWriteIndex >= 0) {
    const checked = actions.slice(lastWriteIndex + 1).some((record) => {
      const statement = query(record.action);
      return statement !== null && isSelectAll(statement) && !record.result.error;
    });
    signals.push(
      checked
        ? {
            kind: 'wrong-table-state',
            skill: 'exact-values',
            evidence: 'the table was checked after the write but is still wrong',
          }
        : {
            kind: 'unverified-write',
            skill: 'verify-after-write',
            evidence: 'the table was not checked after the last write',
          },
    );
  }
  return signals;
}

/** DBBench's extras for the variant operators and failure analysis. */
export const dbbenchExtras: EnvironmentExtras = {
  env: 'dbbench',
  transforms: [schemaLookup, checkAfterWrite],
  changesState: (action) => {
    const statement = query(action);
    return statement !== null && writeStatement.test(statement);
  },
  verificationSkill: 'verify-after-write',
  recoverySkill: 'recover-from-error',
  directiveTexts: {
    'inspect-table': [
      'Before your first query, look at the table (SELECT * FROM the table LIMIT 5) to learn its exact column names.',
      'Never guess a column name: check the columns of the table first.',
    ],
    'quote-identifiers': [
      'Quote every table and column name as the engine requires (double quotes in PostgreSQL, backticks in MySQL).',
      'Names with spaces, capitals or symbols must always be quoted.',
    ],
    'recover-from-error': [
      'If a statement fails, read the error, fix the statement and run it again; never give up after an error.',
      'An SQL error is not the end: correct the statement and retry.',
    ],
    'answer-format': [
      'Commit only the values asked for, as a list, with no extra words.',
      'Your final answer must be the bare values, never a sentence.',
    ],
    'exact-values': ['Copy every value exactly as the task writes it, character for character.'],
    'verify-after-write': [
      'After changing the table, select it again and fix anything that is wrong before you commit.',
      'Check the result of every INSERT, UPDATE or DELETE before you commit.',
    ],
    'action-format': ['End every reply with exactly one action in the required format.'],
  },
  skillDirections: {
    'inspect-table': 'schema-grounding',
    'quote-identifiers': 'identifier-quoting',
    'recover-from-error': 'error-recovery',
    'answer-format': 'answer-formatting',
    'exact-values': 'write-verification',
    'verify-after-write': 'write-verification',
  },
  failureSignals: dbbenchFailureSignals,
};
