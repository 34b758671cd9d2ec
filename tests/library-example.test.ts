import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrainSummary } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { runExample } from '../examples/custom-trainer.js';

// The example docs/library.md walks through: it must keep running as the packages change.
describe('the library example (examples/custom-trainer.ts)', () => {
  it('trains through its own trainer and router, learns under H0, and turns the run into examples', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'library-example-')), 'run');
    const result = await runExample(dir);

    expect(result.pool).toHaveLength(3);
    // Every step's update went through the example's trainer, and rescue through its router.
    expect(result.trainer.seen.map((update) => update.step)).toEqual([1, 2, 3, 4]);
    expect(result.router.asked.length).toBeGreaterThan(0);
    expect(result.trainer.seen.reduce((sum, update) => sum + update.rescued, 0)).toBeGreaterThan(0);
    expect(result.trainer.seen.every((update) => update.assistantTurns >= update.groups)).toBe(true);

    // A summary the command line can read, and a policy better under H0 than before.
    const summary = TrainSummary.parse(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')));
    expect(summary).toEqual(result.summary);
    expect(summary.method).toBe('harness-s');
    expect(result.avgAfter).toBeGreaterThan(result.avgBefore);

    // Every retained attempt as an example; rescued ones re-rendered under H0's prompt.
    const rescued = result.examples.filter((example) => example.harnessId !== 'h0');
    expect(rescued.length).toBeGreaterThan(0);
    expect(rescued.every((example) => example.context === 'h0')).toBe(true);
    expect(result.examples.every((example) => Number.isFinite(example.advantage))).toBe(true);
    // With the tools the model was offered, for a chat template to render.
    expect(
      result.examples.every((example) => example.tools?.some((tool) => tool.function.name === 'execute_sql')),
    ).toBe(true);
  }, 120_000);
});
