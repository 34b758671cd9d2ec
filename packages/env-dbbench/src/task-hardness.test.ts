import type { PlanNode } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchOraclePlan } from './oracle-plan.js';
import type { DbbenchTask } from './records.js';
import { dbbenchHardness, dbbenchHardnessLevels } from './task-hardness.js';

const base: DbbenchTask = {
  id: 'dev-0',
  env: 'dbbench',
  split: 'dev',
  instruction: 'How many rows?',
  category: 'counting',
  tags: ['question'],
  type: 'counting',
  kind: 'question',
  tableName: 'results',
  columns: ['name', 'score'],
  rows: [['a', '1']],
  label: ['1'],
  answerMd5: null,
  index: 0,
};
const { hard, veryHard } = dbbenchHardnessLevels;

/** Hardness of every decision point of a plan, by skill. */
function decisionHardness(nodes: readonly PlanNode[], into = new Map<string, number>()): Map<string, number> {
  for (const node of nodes) {
    if (node.kind !== 'decide') continue;
    into.set(node.skill, node.hardness ?? 0);
    decisionHardness(node.right, into);
    decisionHardness(node.wrong, into);
  }
  return into;
}

describe('dbbenchHardness', () => {
  it('finds nothing hard in a plain task', () => {
    expect(dbbenchHardness(base)).toEqual({});
  });

  it('reads the features: punctuated names, odd columns, several answers, tricky written values', () => {
    expect(dbbenchHardness({ ...base, tableName: 'CSI:Miami Characters' })).toEqual({ 'quote-identifiers': hard });
    expect(dbbenchHardness({ ...base, columns: ['Year(s) won', 'Power ( MW )', 'No. Specimens', 'x'] })).toEqual({
      'inspect-table': veryHard,
      'recover-from-error': hard,
    });
    expect(dbbenchHardness({ ...base, label: ['a', 'b'] })).toEqual({ 'answer-format': hard });
    expect(dbbenchHardness({ ...base, label: ['a', 'b', 'c'] })).toEqual({ 'answer-format': veryHard });
    const write = { ...base, kind: 'write' as const, type: 'UPDATE' };
    expect(dbbenchHardness({ ...write, label: ["UPDATE t SET a = '1935–1960' WHERE b = 'M-1'"] })).toEqual({
      'exact-values': hard,
      'verify-after-write': hard,
    });
    expect(dbbenchHardness({ ...write, label: ["UPDATE t SET a = '12,000', c = 'W 27–20' WHERE b = 'x'"] })).toEqual({
      'exact-values': veryHard,
      'verify-after-write': hard,
    });
  });

  it('puts the hardness on the plan decision points of those skills only', () => {
    const task = { ...base, tableName: 'Radio Stations', label: ['K255AZ', 'K228EE', 'K220FA'] };
    const hardness = decisionHardness(dbbenchOraclePlan(task, 'postgres').nodes);
    expect(hardness.get('answer-format')).toBe(veryHard);
    expect(hardness.get('inspect-table')).toBe(0);
    expect(hardness.get('quote-identifiers')).toBe(0);
  });
});
