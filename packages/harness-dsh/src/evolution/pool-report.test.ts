import { describe, expect, it } from 'vitest';
import { type PoolIndex, summarisePool, type VariantRecord } from './pool-report.js';

const record = (id: string, perTask: Record<string, number>, parent: string | null = 'h0'): VariantRecord => ({
  id,
  parent,
  direction: parent ? 'd' : null,
  round: parent ? 1 : 0,
  description: id,
  operator: 'directive',
  status: 'accepted',
  validation: {
    perTask,
    avgAtK: Object.values(perTask).reduce((sum, value) => sum + value, 0) / (3 * Object.keys(perTask).length),
  },
});

describe('summarisePool', () => {
  it('measures coverage, locality and complementarity against H0', () => {
    const index: PoolIndex = {
      schemaVersion: 1,
      env: 'dbbench',
      split: 'dev',
      validationTasks: ['t1', 't2', 't3', 't4'],
      k: 3,
      seed: 0,
      solvedRule: 'majority',
      policy: { id: 'sim', version: 'sim@0' },
      h0: record('h0', { t1: 3, t2: 2, t3: 1, t4: 0 }, null),
      members: [record('a', { t1: 3, t2: 0, t3: 2, t4: 0 }), record('b', { t1: 2, t2: 2, t3: 0, t4: 3 })],
      rejected: [{ ...record('c', {}), status: 'rejected', reason: 'protocol' }],
      rounds: [],
    };
    const summary = summarisePool(index);
    expect(summary).toMatchObject({
      h0Coverage: 0.5,
      bestSingleCoverage: 0.75,
      bestSingle: 'b',
      jointCoverage: 1,
      jointCoverageWithH0: 1,
      poolSize: 2,
      rejected: 1,
      locality: { help: 2, hurt: 1, helpAndHurt: 1 },
      complementarity: { distinctSolvedSets: 2, mutuallyComplementaryPairs: 1 },
    });
    expect(summary.variants[0]).toMatchObject({ id: 'a', helps: ['t3'], hurts: ['t2'], unique: ['t3'] });
    expect(summary.variants[1]).toMatchObject({ id: 'b', helps: ['t4'], hurts: [], unique: ['t2', 't4'] });
    expect(summary.complementarity.pairs).toEqual([{ a: 'a', b: 'b', onlyA: 1, onlyB: 2, distance: 0.75 }]);
  });
});
