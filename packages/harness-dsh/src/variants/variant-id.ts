import { createHash } from 'node:crypto';
import type { HarnessSpec } from '@harness-s/core';

/** JSON with object keys sorted at every level and undefined fields dropped: equal content, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A variant's id: `v-` and 12 hex digits of the SHA-256 of its canonical JSON without the id. */
export function variantId(spec: HarnessSpec): string {
  const { id: _id, ...content } = spec;
  return `v-${sha256(canonicalJson(content)).slice(0, 12)}`;
}

/**
 * What a harness does, without its name, lineage or prose: two variants with equal mechanics
 * behave the same, whatever their parent or description, so the pool keeps only one of them.
 */
export function mechanicsKey(spec: HarnessSpec): string {
  const { prompt, codec, tools, context, execution, env, family } = spec;
  return sha256(canonicalJson({ env, family, prompt, codec, tools, context, execution }));
}
