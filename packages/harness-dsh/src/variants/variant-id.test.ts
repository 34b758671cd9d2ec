import { describe, expect, it } from 'vitest';
import { dbbenchH0 } from '../dbbench.js';
import { canonicalJson, mechanicsKey, variantId } from './variant-id.js';

describe('variant ids', () => {
  it('writes canonical JSON whatever the key order, dropping undefined fields', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined, b: null }] })).toBe('{"a":[{"b":null,"d":2}],"b":1}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });

  it('derives `v-` and 12 hex digits from the content without the id', () => {
    const spec = { ...dbbenchH0(), parent: 'h0', direction: 'schema-grounding' };
    const id = variantId(spec);
    expect(id).toMatch(/^v-[0-9a-f]{12}$/);
    expect(variantId({ ...spec, id: 'anything-else' })).toBe(id);
    expect(variantId({ ...spec, description: 'another description' })).not.toBe(id);
    expect(variantId({ ...spec, execution: { ...spec.execution, maxSteps: 16 } })).not.toBe(id);
  });

  it('keys mechanics apart from lineage and prose', () => {
    const spec = dbbenchH0();
    const relabelled = { ...spec, id: 'x', parent: 'p', direction: 'd', description: 'other words' };
    expect(mechanicsKey(relabelled)).toBe(mechanicsKey(spec));
    expect(mechanicsKey({ ...spec, context: { ...spec.context, maxObservationChars: 900 } })).not.toBe(
      mechanicsKey(spec),
    );
  });
});
