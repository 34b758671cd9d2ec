import type { HarnessSpec, Task } from '@harness-s/core';
import { createPlainHarness } from '@harness-s/core/testing';
import type { HarnessProfile, ProfileSet } from '../profiles.js';

/** A harness like the plain one with another id (a "variant"). */
export function variant(id: string) {
  const harness = createPlainHarness();
  const spec: HarnessSpec = { ...harness.spec, id, parent: 'plain', direction: id };
  return { ...harness, spec };
}

/** A profile set written out by hand: successes of 4 attempts per harness and validation task. */
export function handProfiles(successes: Record<string, Record<string, number>>): ProfileSet {
  const taskIds = Object.keys(Object.values(successes)[0] ?? {});
  const profile = (harnessId: string): HarnessProfile => ({
    harnessId,
    parent: null,
    direction: null,
    description: harnessId,
    outcomes: Object.fromEntries(
      taskIds.map((id) => [id, { attempts: 4, successes: successes[harnessId]?.[id] ?? 0 }]),
    ),
    successRate: 0,
    helps: [],
    hurts: [],
    byFeature: { 'category=select': { tasks: taskIds.length, h0Rate: 0.5, rate: 0.5 } },
    summary: harnessId,
    summaryBy: 'template',
  });
  const [h0 = 'h0', ...variants] = Object.keys(successes);
  return {
    schemaVersion: 1,
    env: 'hand',
    policyVersion: 'v1',
    anchoredAtStep: 0,
    k: 4,
    seed: 0,
    tasks: taskIds.map((id) => ({ id, text: `task ${id}`, features: ['category=select'] })),
    h0: profile(h0),
    variants: variants.map(profile),
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

export const selectTask = (id: string): Task => ({
  id,
  env: 'hand',
  split: 'test',
  instruction: `task ${id}`,
  category: 'select',
  tags: [],
});
