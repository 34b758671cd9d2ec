import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAndKill, runCli } from './src/cli-process.js';
import { runOutcome } from './src/run-outcome.js';

const trainArgs = [
  'train',
  '--env',
  'dbbench',
  '--method',
  'h0-resample',
  '--steps',
  '5',
  '--batch-size',
  '3',
  '--k',
  '3',
  '--eval-k',
  '1',
  '--seed',
  '4',
  '--quiet',
];

/** Committed steps of a run, from its metrics file. */
const stepsIn = (metricsFile: string) =>
  existsSync(metricsFile) ? readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean).length : 0;

describe('a training run killed with SIGKILL', () => {
  it('resumes from its last checkpoint and ends as an uninterrupted run, no group lost or doubled', async () => {
    const base = await mkdtemp(join(tmpdir(), 'resume-'));
    const whole = join(base, 'whole');
    const killed = join(base, 'killed');
    expect((await runCli([...trainArgs, '--out', whole])).code).toBe(0);

    await runAndKill([...trainArgs, '--out', killed], () => stepsIn(join(killed, 'metrics.jsonl')) >= 2, 120_000);
    const partial = stepsIn(join(killed, 'metrics.jsonl'));
    expect(partial).toBeGreaterThanOrEqual(2);
    expect(partial).toBeLessThan(5);
    expect(existsSync(join(killed, 'summary.json'))).toBe(false);
    // The killed session's time up to its last checkpoint, which the resumed run's time includes.
    const lastCheckpoint = JSON.parse(readFileSync(join(killed, 'checkpoints', 'latest.json'), 'utf8'));
    const killedSession: number = lastCheckpoint.totals.elapsedMs;
    expect(killedSession).toBeGreaterThan(0);

    expect(
      (await runCli(['train', '--resume', killed, ...trainArgs.slice(1).filter((arg) => arg !== '--quiet'), '--quiet']))
        .code,
    ).toBe(0);
    const [expected, actual] = await Promise.all([runOutcome(whole), runOutcome(killed)]);
    expect(actual.metrics.map((line) => line['step'])).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(actual.trajectories.map(([id]) => id)).size).toBe(actual.trajectories.length);
    expect(actual).toEqual(expected);
    // The run's time: the killed session's, and at least the steps the resumed one ran.
    const resumedSteps = readFileSync(join(killed, 'metrics.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { step: number; durationMs: number })
      .filter((line) => line.step > lastCheckpoint.step);
    const resumedStepsMs = resumedSteps.reduce((sum, line) => sum + line.durationMs, 0);
    expect(resumedSteps.length).toBeGreaterThan(0);
    const { durationMs } = JSON.parse(readFileSync(join(killed, 'summary.json'), 'utf8'));
    expect(durationMs).toBeGreaterThanOrEqual(killedSession + resumedStepsMs);
    // The policy of every step is kept, and the resumed run's are the uninterrupted run's.
    const snapshot = (dir: string, step: number) =>
      JSON.parse(readFileSync(join(dir, 'checkpoints', `policy-step-${step}.json`), 'utf8')).trainer;
    for (const step of [0, 1, 2, 3, 4, 5]) expect(snapshot(killed, step)).toEqual(snapshot(whole, step));
    expect(snapshot(killed, 5)).not.toEqual(snapshot(killed, 0));
  }, 240_000);
});
