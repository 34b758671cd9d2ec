import { describe, expect, it } from 'vitest';
import { checkRunId, namePattern, newRunId, runIdOf, runObjectName, runPartName } from './naming.js';

describe('run object names', () => {
  it('name every object with the prefix and the run id, short enough for MySQL user names', () => {
    const runId = newRunId();
    expect(runId).toMatch(/^[a-z0-9]{8}$/);
    expect(newRunId()).not.toBe(runId);
    expect(runObjectName(runId)).toBe(`hs_dbbench_${runId}`);
    expect(runPartName(runId, 's1234').length).toBeLessThanOrEqual(32);
    expect(() => checkRunId('Bad-id')).toThrow(/8 lower-case letters or digits/);
  });

  it('find the run id in our names only', () => {
    expect(runIdOf('hs_dbbench_ab12cd34')).toBe('ab12cd34');
    expect(runIdOf('hs_dbbench_ab12cd34_s7')).toBe('ab12cd34');
    for (const name of [
      'hs_dbbench_cleanup',
      'hs_dbbench_ab12cd345',
      'hs_dbbench_AB12CD34',
      'test',
      'dbbench_ab12cd34',
      'hs_dbbench_ab12cd3',
    ])
      expect({ name, run: runIdOf(name) }).toEqual({ name, run: null });
  });

  it('match names in LIKE with the underscores escaped', () => {
    expect(namePattern()).toBe('hs\\_dbbench\\_%');
    expect(namePattern('ab12cd34')).toBe('hs\\_dbbench\\_ab12cd34%');
  });
});
