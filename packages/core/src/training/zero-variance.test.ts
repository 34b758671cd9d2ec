import { describe, expect, it } from 'vitest';
import { readTrajectories } from '../run-store.js';
import { createPlainHarness } from '../testing/index.js';
import { run } from './__fixtures__/rescue-run.js';
import { trainingExamples } from './examples.js';
import { readStepMetrics } from './train-store.js';

describe('groups without spread', () => {
  it('drops groups without spread from the update when asked, records them dropped, and export leaves them out', async () => {
    const advantage = { zeroVariance: 'drop' };
    const { summary, trainer, dir } = await run('harness-s', {
      rescue: { variants: 3, attemptsPerVariant: 1 },
      advantage,
    });
    // count-1 is solved under H0 every time (no spread); count-2 and count-3 are rescued by a mixed group.
    expect(trainer.updates.map((groups) => groups.map((group) => group.taskId).sort())).toEqual([
      ['count-2', 'count-3'],
      ['count-2', 'count-3'],
    ]);
    expect((await readStepMetrics(dir)).map((metrics) => metrics.droppedGroups)).toEqual([1, 1]);
    expect(summary.droppedGroups).toBe(2);
    const trajectories = await readTrajectories(dir);
    const solved = trajectories.filter((trajectory) => trajectory.training && trajectory.taskId === 'count-1');
    expect(solved).toHaveLength(2 * 2);
    for (const { training } of solved) expect(training).toMatchObject({ retained: true, dropped: true });
    expect(solved.every(({ training }) => training?.advantage === undefined)).toBe(true);
    // What export writes is what the update had: the dropped attempts are left out.
    const examples = trainingExamples(trajectories, { tasks: [], h0: createPlainHarness(), context: 'variant' });
    expect(examples.some((example) => example.taskId === 'count-1')).toBe(false);
    expect(examples).toHaveLength(trainer.updates.flat().reduce((sum, group) => sum + group.trajectories.length, 0));
    // Kept at zero advantage by default, and retained.
    const kept = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 } });
    expect(kept.summary.droppedGroups).toBeUndefined();
    expect(kept.trainer.updates.map((groups) => groups.length)).toEqual([3, 3]);
    const keptSolved = (await readTrajectories(kept.dir)).filter((trajectory) => trajectory.taskId === 'count-1');
    expect(keptSolved.every(({ training }) => training?.retained && !training.dropped)).toBe(true);
  });
});
