import { describe, expect, it } from 'vitest';
import { appworldHardness, appworldHardnessLevels } from './task-hardness.js';

describe('appworldHardness', () => {
  it('makes the skills a scenario is tagged with harder by its difficulty', () => {
    expect(appworldHardness({ tags: ['pagination', 'write'], difficulty: 1 })).toEqual({});
    expect(appworldHardness({ tags: ['intersection', 'pagination', 'write'], difficulty: 2 })).toEqual({
      'intersect-not-union': appworldHardnessLevels.hard,
      'fetch-all-pages': appworldHardnessLevels.hard,
    });
    expect(appworldHardness({ tags: ['account-recovery', 'multi-app'], difficulty: 3 })).toEqual({
      'finish-account-flow': appworldHardnessLevels.veryHard,
      'lookup-api-doc': appworldHardnessLevels.veryHard,
    });
    expect(appworldHardness({ tags: ['pagination'] })).toEqual({});
  });
});
