import { describe, expect, it } from 'vitest';
import { createSwegymEnvironment } from './environment.js';
import { swegymHardness, swegymHardnessLevels } from './task-hardness.js';

describe('swegymHardness', () => {
  it('makes reviewing the diff hard where reproducing edits a fixture, and nothing else', async () => {
    const environment = createSwegymEnvironment({ actionsFrom: 'plan' });
    const { tasks } = await environment.loadTasks({ split: 'all' });
    await environment.close();
    for (const task of tasks) {
      const expected =
        task.embedded?.oracle.debug.kind === 'fixture' ? { 'check-diff-before-submit': swegymHardnessLevels.hard } : {};
      expect(swegymHardness(task)).toEqual(expected);
    }
    expect(tasks.some((task) => Object.keys(swegymHardness(task)).length > 0)).toBe(true);
    expect(tasks.some((task) => Object.keys(swegymHardness(task)).length === 0)).toBe(true);
  });
});
