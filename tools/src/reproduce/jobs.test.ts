import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHarness } from '@harness-s/harness-dsh';
import type { ProfileSet } from '@harness-s/router';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvironment } from '../environments.js';
import { loadTaskSplits } from '../task-splits.js';
import { type EnvironmentResources, familiesOf, type ReproduceJob, runJob } from './jobs.js';
import { budgetFor } from './settings.js';

const environment = createEnvironment('dbbench');
afterAll(() => environment.close());

/** DBBench's resources for methods that route nothing (grpo, h0-resample): no pool, no profiles read. */
const plainResources = async (): Promise<EnvironmentResources> => ({
  environment,
  splits: await loadTaskSplits(environment),
  h0: await resolveHarness('dbbench', 'h0'),
  pool: [],
  initialProfiles: {} as ProfileSet,
});

describe('a reproduction job, continued', () => {
  it("keeps a finished run's saved evaluations, and evaluates again when the run is not the one saved", async () => {
    const root = await mkdtemp(join(tmpdir(), 'reproduce-job-'));
    const resources = await plainResources();
    const job: ReproduceJob = {
      env: 'dbbench',
      method: 'grpo',
      variant: 'main',
      seed: 1,
      root,
      budget: { ...budgetFor('dbbench', true), steps: 1, batchSize: 2, k: 2, evalK: 1, evalEvery: 1 },
      concurrency: 2,
      environmentOptions: {},
      sim: {},
    };
    const record = await runJob(job, resources);
    // The trained policy under the other harness families.
    expect(Object.keys(record.families ?? {}).length).toBeGreaterThan(0);

    // A value no evaluation gives marks what is kept; a study made before stays when none is asked for.
    const marked = {
      ...record,
      families: { marked: { passAtK: 2, avgAtK: 2, k: 1 } },
      rescueStudy: { reps: 1, variants: 2, stages: [] },
    };
    expect(await runJob({ ...job, earlier: marked }, resources)).toEqual(marked);
    // A saved record of another training of the run (another summary) is not trusted.
    const other = { ...marked, durationMs: record.durationMs + 1 };
    expect(await runJob({ ...job, earlier: other }, resources)).toEqual(record);
  }, 60_000);

  it('stops at its signal with its checkpoints kept, and continued ends as a run never interrupted', async () => {
    const resources = await plainResources();
    const job = async (): Promise<ReproduceJob> => ({
      env: 'dbbench',
      method: 'h0-resample',
      variant: 'main',
      seed: 2,
      root: await mkdtemp(join(tmpdir(), 'reproduce-job-')),
      budget: { ...budgetFor('dbbench', true), steps: 3, batchSize: 2, k: 2, evalK: 1, evalEvery: 3 },
      concurrency: 2,
      environmentOptions: {},
      sim: {},
    });
    const timeless = (record: object) =>
      JSON.parse(JSON.stringify(record, (key, value) => (/durationMs|seconds/i.test(key) ? undefined : value)));

    const whole = await runJob(await job(), resources);
    const interrupted = await job();
    const controller = new AbortController();
    const steps: string[] = [];
    const stopAfterOne = (label: string) => {
      steps.push(label);
      controller.abort(new Error('interrupted by SIGINT'));
    };
    await expect(runJob(interrupted, resources, stopAfterOne, controller.signal)).rejects.toThrow(/interrupted/);
    expect(steps).toHaveLength(1);
    const continued = await runJob(interrupted, resources);
    expect(timeless(continued)).toEqual(timeless(whole));
  }, 60_000);
});

describe('the harness families a trained policy is evaluated under', () => {
  it("are the environment's other built-in families in H0's code language", async () => {
    expect(familiesOf(await resolveHarness('dbbench', 'h0'))).toEqual(['minimal', 'codeact']);
    expect(familiesOf(await resolveHarness('appworld', 'h0'))).toEqual(['minimal']);
    expect(familiesOf(await resolveHarness('appworld', 'h0-python'))).toEqual(['minimal-python']);
    expect(familiesOf(await resolveHarness('swegym', 'h0'))).toEqual(['codeact']);
  });
});
