import { describe, expect, it } from 'vitest';
import { readTrajectories } from '../run-store.js';
import { run } from './__fixtures__/rescue-run.js';
import { readStepMetrics } from './train-store.js';

describe('groups without spread', () => {
  it('drops groups without spread from the update when asked, and records them as dropped, not retained', async () => {
    const advantage = { zeroVariance: 'drop' };
    const { trainer, dir } = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 }, advantage });
    // count-1 is solved under H0 every time (no spread); count-2 and count-3 are rescued by a mixed group.
    expect(trainer.updates.map((groups) => groups.map((group) => group.taskId).sort())).toEqual([
      ['count-2', 'count-3'],
      ['count-2', 'count-3'],
    ]);
    expect((await readStepMetrics(dir)).map((metrics) => metrics.droppedGroups)).toEqual([1, 1]);
    const trajectories = await readTrajectories(dir);
    const solved = trajectories.filter((trajectory) => trajectory.training && trajectory.taskId === 'count-1');
    expect(solved).toHaveLength(2 * 2);
    for (const { training } of solved) expect(training).toMatchObject({ retained: false, dropped: true });
    expect(solved.every(({ training }) => training?.advantage === undefined)).toBe(true);
    // Kept at zero advantage by default, and retained.
    const kept = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 } });
    expect(kept.trainer.updates.map((groups) => groups.length)).toEqual([3, 3]);
    const keptSolved = (await readTrajectories(kept.dir)).filter((trajectory) => trajectory.taskId === 'count-1');
    expect(keptSolved.every(({ training }) => training?.retained && !training.dropped)).toBe(true);
  });
});
