import type { Check, Evaluation } from '@harness-s/core';
import type { Database } from 'better-sqlite3';
import type { Row } from '../world/rows.js';
import { systemSender, systemTextNumber } from '../world/schema.js';

const systemSenderPattern = new RegExp(`^${systemSender('[a-z_]+').replaceAll('.', '\\.')}$`);

import type { Completion } from '../world/session.js';
import { compareAnswer, type ExpectedAnswer } from './answers.js';
import { diffStates, type RecordChange, type StateSnapshot } from './state-diff.js';

/** What a task's checks can read and declare. */
export interface CheckContext {
  /** The task's initial state and the state the episode left. Read only. */
  before: Database;
  after: Database;
  supervisorId: number;
  completion: Completion | null;
  /** The records that changed in a table (every change, allowed or not). */
  changes(table: string): RecordChange[];
  /** A required outcome: named, passed or not, with what was expected and found. */
  require(name: string, passed: boolean, detail?: string): void;
  /** The answer must match. */
  expectAnswer(expected: ExpectedAnswer): void;
  /** Declares changes the task asks for, so they are not collateral damage. */
  allow(table: string, which?: (change: RecordChange) => boolean): void;
}

/** A task's own checks. */
export type TaskCheck = (context: CheckContext) => void;

/** Messages the apps send themselves (reset codes) are never collateral damage. */
const systemMessage = (change: RecordChange): boolean => {
  const row = change.after ?? change.before;
  if (change.kind !== 'added' || !row) return false;
  if (change.table === 'mail_messages') return systemSenderPattern.test(String(row['sender']));
  if (change.table === 'phone_text_messages') return row['sender'] === systemTextNumber;
  return false;
};

/**
 * Scores an episode as AppWorld does: the task was completed, every required change happened,
 * the answer matches, and nothing else changed (table and record hashes compared; bookkeeping
 * tables and the apps' own reset-code messages excepted). Success needs every check.
 */
export function evaluateState(options: {
  before: Database;
  beforeSnapshot: StateSnapshot;
  after: Database;
  supervisorId: number;
  completion: Completion | null;
  check: TaskCheck;
  /** The tables written during the episode, when known; all tables are compared otherwise. */
  written?: readonly string[];
}): Evaluation {
  const changes = diffStates({ snapshot: options.beforeSnapshot, db: options.before }, options.after, options.written);
  const checks: Check[] = [];
  const allowances: Array<{ table: string; which: (change: RecordChange) => boolean }> = [];
  const { completion } = options;
  checks.push({
    name: 'task-completed',
    passed: completion?.status === 'success',
    detail: completion ? `complete_task status ${completion.status}` : 'complete_task was not called',
  });
  const context: CheckContext = {
    before: options.before,
    after: options.after,
    supervisorId: options.supervisorId,
    completion,
    changes: (table) => changes.filter((change) => change.table === table),
    require: (name, passed, detail) => checks.push({ name, passed, ...(detail === undefined ? {} : { detail }) }),
    expectAnswer: (expected) => checks.push({ name: 'answer', ...compareAnswer(expected, completion?.answer) }),
    allow: (table, which = () => true) => allowances.push({ table, which }),
  };
  options.check(context);
  const collateral = changes.filter(
    (change) =>
      !systemMessage(change) &&
      !allowances.some((allowance) => allowance.table === change.table && allowance.which(change)),
  );
  checks.push({
    name: 'no-collateral-damage',
    passed: collateral.length === 0,
    detail:
      collateral.length === 0
        ? 'no other record changed'
        : `${collateral.length} unexpected change(s): ${collateral
            .slice(0, 5)
            .map((change) => `${change.kind} ${change.table} ${change.key}`)
            .join('; ')}`,
  });
  const success = checks.every((check) => check.passed);
  return {
    reward: success ? 1 : 0,
    success,
    checks,
    details: {
      answer: completion?.answer ?? null,
      status: completion?.status ?? null,
      changedRecords: changes.length,
      collateral: collateral.slice(0, 20).map(({ table, key, kind }) => ({ table, key, kind })),
    },
  };
}

/** A row's value as a number (SQLite gives numbers for INTEGER and REAL columns). */
export const numberOf = (row: Row | null, column: string): number => Number(row?.[column] ?? Number.NaN);
