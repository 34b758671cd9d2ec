import type { SkillDescription } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { environmentExtras } from './extras.js';
import { type OperatorContext, proposeChanges, type RepairDirection } from './operators.js';
import { applyOperations, deriveVariant } from './patch.js';
import { variantId } from './variant-id.js';

const dbbenchSkills: SkillDescription[] = [
  { name: 'inspect-table', description: 'look at the table before querying it' },
  { name: 'recover-from-error', description: 'fix a failed statement' },
  { name: 'verify-after-write', description: 'check the table after a write' },
  { name: 'answer-format', description: 'commit only the values' },
];
const context: OperatorContext = { skills: dbbenchSkills, extras: environmentExtras('dbbench') };
const direction = (name: string, skills: string[]): RepairDirection => ({ name, skills, causes: [], tasks: [] });

describe('variant operators', () => {
  it('offers a mechanical fix first: the schema lookup, with a note, for schema grounding', () => {
    const [first, ...rest] = proposeChanges(dbbenchH0(), direction('schema-grounding', ['inspect-table']), context);
    expect(first?.operator).toBe('tool-transform');
    expect(first?.operations).toEqual([
      { op: 'add-tool-transform', transform: { kind: 'schema-lookup', options: {}, skill: 'inspect-table' } },
      {
        op: 'add-directive',
        directive: expect.objectContaining({ id: 'note-schema-lookup', direction: 'schema-grounding' }),
      },
    ]);
    // Then a rule in the environment's own wording, then its rewording.
    expect(rest.map((change) => change.operator)).toEqual(['directive', 'directive-rewording']);
    expect(rest[0]?.operations[0]).toMatchObject({
      op: 'add-directive',
      directive: {
        id: 'rule-inspect-table',
        skill: 'inspect-table',
        text: expect.stringContaining('look at the table'),
      },
    });
  });

  it('proposes execution rules only for the directions they serve', () => {
    const recovery = proposeChanges(dbbenchH0(), direction('error-recovery', ['recover-from-error']), context);
    expect(recovery.map((change) => change.operator)).toContain('retry-on-error');
    const verification = proposeChanges(dbbenchH0(), direction('write-verification', ['verify-after-write']), context);
    expect(verification.map((change) => change.operator)).toEqual(
      expect.arrayContaining(['tool-transform', 'verify-after-change', 'directive']),
    );
    const formatting = proposeChanges(dbbenchH0(), direction('answer-formatting', ['answer-format']), context);
    expect(formatting.map((change) => change.operator)).not.toContain('retry-on-error');
    const steps = proposeChanges(dbbenchH0(), direction('step-budget', []), context);
    expect(steps).toEqual([expect.objectContaining({ operator: 'limits', description: 'step limit 15 -> 23' })]);
  });

  it('words a rule from the skill description for an environment without extras, and skips what the parent has', () => {
    const bare: OperatorContext = {
      skills: [{ name: 'count', description: 'add the right amount' }],
      extras: environmentExtras('counter'),
    };
    const parent = { ...dbbenchH0(), env: 'counter' };
    const [change] = proposeChanges(parent, direction('count', ['count']), bare);
    expect(change?.operations[0]).toMatchObject({
      directive: { text: 'Always add the right amount.', skill: 'count' },
    });
    const child = deriveVariant(parent, parent, change ?? (undefined as never));
    expect(proposeChanges(child, direction('count', ['count']), bare)).toEqual([]);
  });

  it('makes a child that is its base plus the accumulated patch, with lineage and a content id', () => {
    const h0 = dbbenchH0();
    const [lookup] = proposeChanges(h0, direction('schema-grounding', ['inspect-table']), context);
    const child = deriveVariant(h0, h0, lookup ?? (undefined as never));
    const [retry] = proposeChanges(child, direction('error-recovery', ['recover-from-error']), context);
    const grandchild = deriveVariant(h0, child, retry ?? (undefined as never));
    expect(grandchild.parent).toBe(child.id);
    expect(grandchild.direction).toBe('error-recovery');
    expect(grandchild.id).toBe(variantId(grandchild));
    expect(grandchild.patch?.base).toBe('h0');
    expect(grandchild.patch?.operations).toHaveLength(4);
    expect(applyOperations(h0, grandchild.patch?.operations ?? [])).toEqual({
      prompt: grandchild.prompt,
      tools: grandchild.tools,
      context: grandchild.context,
      execution: grandchild.execution,
    });
    expect(grandchild.tools.map((tool) => tool.kind)).toEqual(['schema-lookup']);
    expect(grandchild.execution.retryOnError?.message).toMatch(/failed/);
    expect(grandchild.description).toMatch(/schema-lookup.* \+ retry on error/);
  });
});
