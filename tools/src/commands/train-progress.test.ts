import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchText, rescueText, resumeLine } from './train-progress.js';

describe('a continued training run', () => {
  it('says where it picks up and what it does again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'resume-line-'));
    expect(await resumeLine(dir, 6)).toBe(
      `Continuing ${dir}: no checkpoint yet, so it starts again from the beginning`,
    );
    await mkdir(join(dir, 'checkpoints'));
    const checkpoint = (step: number, evals: number[]) =>
      writeFile(
        join(dir, 'checkpoints', 'latest.json'),
        JSON.stringify({ step, evals: evals.map((at) => ({ step: at, passAtK: 0, avgAtK: 0, k: 3 })) }),
      );
    await checkpoint(2, [0]);
    expect(await resumeLine(dir, 6)).toBe(
      `Continuing ${dir} from its checkpoint after step 2: steps 3-6 to go (step 3 starts over: the stop came before it was done)`,
    );
    // Stopped in the evaluation after step 2: the step is kept, its evaluation runs first.
    expect(await resumeLine(dir, 6, 2)).toBe(
      `Continuing ${dir} from its checkpoint after step 2: steps 3-6 to go; the evaluation under H0 after step 2, cut short by the stop, runs first`,
    );
    await checkpoint(2, [0, 2]);
    expect(await resumeLine(dir, 2)).toBe(`Continuing ${dir}: all 2 steps are done`);
    // A run stopped in step 5 of 10, continued to 4 steps: step 4's evaluation is newly due.
    await writeFile(join(dir, 'config.json'), JSON.stringify({ config: { steps: 10 } }));
    await checkpoint(4, [0, 2]);
    expect(await resumeLine(dir, 4)).toBe(
      `Continuing ${dir}: all 4 steps are done; step 4 is now the last, so its evaluation under H0 runs first`,
    );
    await checkpoint(2, [0, 2]);
    // A summary of other steps than the checkpoint's is of an earlier end, since continued and stopped.
    await writeFile(join(dir, 'summary.json'), JSON.stringify({ steps: 1 }));
    expect(await resumeLine(dir, 6, 2)).toBe(
      `Continuing ${dir} from its checkpoint after step 2: steps 3-6 to go (step 3 starts over: the stop came before it was done)`,
    );
    // Stopped in step 3 after the router's re-anchoring before it was checkpointed: that is kept.
    await writeFile(
      join(dir, 'checkpoints', 'latest.json'),
      JSON.stringify({ step: 2, evals: [], router: { anchoredAt: 3 } }),
    );
    expect(await resumeLine(dir, 6)).toBe(
      `Continuing ${dir} from its checkpoint after step 2: steps 3-6 to go (step 3 starts over; the router's re-anchoring before it was done and is kept)`,
    );
    await checkpoint(2, [0, 2]);
    // A run that ended, taken further: nothing of it is sampled again.
    await writeFile(join(dir, 'summary.json'), JSON.stringify({ steps: 2 }));
    expect(await resumeLine(dir, 6, 2)).toBe(`Continuing ${dir}, which ended after step 2: steps 3-6 to go`);
    expect(await resumeLine(dir, 3)).toBe(`Continuing ${dir}, which ended after step 2: step 3 to go`);
  });
});

describe("a training run's opening line", () => {
  it('says a batch larger than the training split cycles through its tasks', () => {
    expect(batchText(4, 8)).toBe('4 tasks');
    expect(batchText(8, 8)).toBe('8 tasks');
    expect(batchText(8, 4)).toBe('8 groups (cycling through the 4 train tasks)');
    expect(batchText(2, 1)).toBe('2 groups (cycling through the 1 train task)');
  });
});

describe("a rescuing run's step line", () => {
  it('counts the rescues that found a success, and the groups the router chose no variant for', () => {
    expect(rescueText({ rescueTriggered: 0, rescued: 0, rescueSucceeded: 0 })).toBe('');
    expect(rescueText({ rescueTriggered: 3, rescued: 3, rescueSucceeded: 2 })).toBe(' (2 rescued)');
    expect(rescueText({ rescueTriggered: 3, rescued: 2, rescueSucceeded: 2 })).toBe(
      ' (2 rescued; the router chose no variant for 1 group)',
    );
    expect(rescueText({ rescueTriggered: 2, rescued: 0, rescueSucceeded: 0 })).toBe(
      ' (0 rescued; the router chose no variant for 2 groups)',
    );
    // A line of a run from before `rescued` was recorded: every all-failed group was rescued.
    expect(rescueText({ rescueTriggered: 2, rescueSucceeded: 1 })).toBe(' (1 rescued)');
  });
});
