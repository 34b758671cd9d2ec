import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounterEnvironment, createPlainHarness } from '../testing/index.js';
import { recordingTrainer, variant } from './__fixtures__/rescue-run.js';
import { checkResumedRun } from './resumed-run.js';
import { TrainConfig, type TrainConfigInput } from './train-config.js';
import { train } from './train-loop.js';

describe('continuing a training run', () => {
  it('refuses another run in the folder, by what differs, and records how far a continuation goes', async () => {
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const dir = join(await mkdtemp(join(tmpdir(), 'resumed-')), 'run');
    const config: TrainConfigInput = { method: 'grpo', steps: 1, batchSize: 2, k: 2, seed: 1, evalK: 1 };
    const options = (changed: Partial<TrainConfigInput>, resume = true) => ({
      config: { ...config, ...changed },
      environment,
      tasks: { train: tasks, test: tasks },
      h0: createPlainHarness(),
      trainer: recordingTrainer(),
      dir,
      resume,
    });
    await train(options({}, false));

    await expect(train(options({ k: 5, seed: 9, method: 'h0-resample' }))).rejects.toThrow(
      /resume: .* holds another run: config\.method "h0-resample" \(the run has "grpo"\), config\.k 5 \(the run has 2\), config\.seed 9 \(the run has 1\); a continued run may change only steps, concurrency, maxInfraRetries/,
    );
    await expect(train({ ...options({}), tasks: { train: tasks.slice(1), test: tasks } })).rejects.toThrow(
      /holds another run: trainTasks \["count-2","count-3"\] \(the run has \["count-1","count-2","count-3"\]\)/,
    );
    // Lists too long to show whole are told apart by what differs.
    const ids = Array.from({ length: 40 }, (_, index) => `task-${String(index).padStart(3, '0')}`);
    const rename = (list: string[], at: number, id: string) => list.map((item, index) => (index === at ? id : item));
    const runOf = (trainTasks: string[]) => ({ trainTasks, config: TrainConfig.parse(config) });
    expect(() => checkResumedRun('run', runOf(ids), runOf(rename(ids, 39, 'task-999')), 0)).toThrow(
      /trainTasks: 40 items \(the run has 40\), 1 the run lacks: "task-999"; without 1 of the run's: "task-039"/,
    );
    expect(() => checkResumedRun('run', runOf(ids), runOf([...ids].reverse()), 0)).toThrow(
      /trainTasks: 40 items \(the run has 40\), the same items in another order/,
    );
    // A recorded config this version cannot read is not taken for the same run.
    expect(() => checkResumedRun('run', { config: { ...config, k: 'eight' } }, runOf(ids), 0)).toThrow(
      /run\/config\.json holds a training config that does not read: k: .*; the run cannot be checked/,
    );
    expect(() => checkResumedRun('run', { env: 'counter' }, runOf(ids), 0)).toThrow(
      /run\/config\.json records no training config/,
    );
    await expect(train({ ...options({}), pool: [variant('good-a')] })).rejects.toThrow(
      /pool \["good-a"\] \(the run has \[\]\)/,
    );

    // Further, and at another concurrency: recorded, so that config.json says what the run is now.
    const longer = await train(options({ steps: 2, concurrency: 1 }));
    expect(longer.steps).toBe(2);
    const recorded = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(recorded.config).toMatchObject({ steps: 2, concurrency: 1, k: 2 });
    // The policy it started from stays as first recorded.
    expect(recorded.policy).toEqual(recordingTrainer().policy.describe());
    await expect(train(options({ steps: 1 }))).rejects.toThrow(
      /resume: steps 1: the run in .* has trained 2 steps already/,
    );
  });

  it('reads a setting recorded before it existed as its default', () => {
    const given = {
      env: 'counter',
      config: { method: 'grpo', steps: 2, advantage: { std: 'population', epsilon: 1e-6, zeroVariance: 'keep' } },
    };
    const older = { env: 'counter', config: { method: 'grpo', steps: 1 } };
    const withDefaults = (value: typeof given) => ({
      ...value,
      config: {
        batchSize: 8,
        k: 8,
        mixtureSize: 3,
        rescueContext: 'h0',
        evalK: 3,
        seed: 0,
        concurrency: 4,
        maxInfraRetries: 2,
        ...value.config,
      },
    });
    expect(() => checkResumedRun('run', older, withDefaults(given), 1)).not.toThrow();
    expect(() =>
      checkResumedRun(
        'run',
        older,
        withDefaults({
          ...given,
          config: { ...given.config, advantage: { std: 'sample', epsilon: 1e-6, zeroVariance: 'keep' } },
        }),
        1,
      ),
    ).toThrow(/config\.advantage \{"std":"sample"/);
  });
});

describe('a continued run whose logs were damaged', () => {
  it('is refused before anything is rewritten, naming the steps its checkpoint covers that the logs lack', async () => {
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const dir = join(await mkdtemp(join(tmpdir(), 'damaged-')), 'run');
    const options = (steps: number, resume: boolean) => ({
      config: { method: 'grpo' as const, steps, batchSize: 2, k: 2, seed: 1, evalK: 1 },
      environment,
      tasks: { train: tasks, test: tasks },
      h0: createPlainHarness(),
      trainer: recordingTrainer(),
      dir,
      resume,
    });
    await train(options(3, false));
    const metricsPath = join(dir, 'metrics.jsonl');
    const trajectoriesPath = join(dir, 'trajectories.jsonl');
    const metrics = await readFile(metricsPath, 'utf8');
    const trajectories = await readFile(trajectoriesPath, 'utf8');
    const config = await readFile(join(dir, 'config.json'), 'utf8');

    // The last checkpointed step's metrics line cut short, as a torn tail: not dropped silently.
    const lines = metrics.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const torn = `${lines.slice(0, 2).join('\n')}\n${lines[2]?.slice(0, 20)}`;
    await writeFile(metricsPath, torn);
    await expect(train(options(4, true))).rejects.toThrow(
      /resume: .*run is damaged: its checkpoint covers steps 1-3, but metrics\.jsonl has no line for step 3; .*train it again in another folder/,
    );
    // Nothing was rewritten: the torn line and the recorded config are as they were.
    expect(await readFile(metricsPath, 'utf8')).toBe(torn);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(config);

    // A step's metrics twice, and a step's attempts gone.
    await writeFile(metricsPath, `${lines[0]}\n${lines[0]}\n${lines[2]}\n`);
    const withoutStep2 = trajectories
      .split('\n')
      .filter((line) => line === '' || JSON.parse(line).training.step !== 2)
      .join('\n');
    await writeFile(trajectoriesPath, withoutStep2);
    await expect(train(options(4, true))).rejects.toThrow(
      /metrics\.jsonl has no line for step 2, and metrics\.jsonl has several lines for step 1, and trajectories\.jsonl has no attempt of step 2/,
    );

    // Restored, it continues.
    await writeFile(metricsPath, metrics);
    await writeFile(trajectoriesPath, trajectories);
    expect((await train(options(4, true))).steps).toBe(4);
  });
});

describe('the pool of a continued run', () => {
  const given = (method: string, pool: string[]) => ({ pool, config: TrainConfig.parse({ method, steps: 2 }) });
  it('is a set, except for a mixture, which takes its first variants', () => {
    const recorded = { pool: ['a', 'b'], config: { method: 'harness-s', steps: 1 } };
    expect(() => checkResumedRun('run', recorded, given('harness-s', ['b', 'a']), 1)).not.toThrow();
    expect(() =>
      checkResumedRun('run', { ...recorded, config: { method: 'mixture', steps: 1 } }, given('mixture', ['b', 'a']), 1),
    ).toThrow(/pool \["b","a"\] \(the run has \["a","b"\]\)/);
  });
});

describe('the router of a continued run', () => {
  const given = (method: string, router?: string) => ({
    ...(router ? { router } : {}),
    config: TrainConfig.parse({ method, steps: 2 }),
  });
  it('is compared only where it routes: a run of another method may have recorded one it did not use', async () => {
    expect(() =>
      checkResumedRun('run', { router: 'adaptive', config: { method: 'grpo', steps: 1 } }, given('grpo'), 1),
    ).not.toThrow();
    expect(() =>
      checkResumedRun(
        'run',
        { router: 'adaptive', config: { method: 'harness-s', steps: 1 } },
        given('harness-s', 'fixed'),
        1,
      ),
    ).toThrow(/router "fixed" \(the run has "adaptive"\)/);
    // Runs recorded the adaptive router's mode behind an `adaptive-` prefix before.
    const continued = (recorded: string, router: string) => () =>
      checkResumedRun(
        'run',
        { router: recorded, config: { method: 'harness-s', steps: 1 } },
        given('harness-s', router),
        1,
      );
    expect(continued('adaptive-adaptive', 'adaptive')).not.toThrow();
    expect(continued('adaptive-fixed', 'fixed')).not.toThrow();
    expect(continued('adaptive-fixed', 'adaptive')).toThrow(/router "adaptive" \(the run has "adaptive-fixed"\)/);

    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const dir = join(await mkdtemp(join(tmpdir(), 'resumed-')), 'run');
    const config: TrainConfigInput = { method: 'grpo', steps: 1, batchSize: 2, k: 2, seed: 1, evalK: 1 };
    await train({
      config,
      environment,
      tasks: { train: tasks, test: tasks },
      h0: createPlainHarness(),
      trainer: recordingTrainer(),
      dir,
    });
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).not.toHaveProperty('router');
  });
});
