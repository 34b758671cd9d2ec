import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../errors.js';
import type { Policy } from '../policy.js';
import { callTool, createCounterEnvironment, createPlainHarness } from '../testing/index.js';
import { policy, recordingTrainer, refusalSetup } from './__fixtures__/rescue-run.js';
import { train } from './train-loop.js';
import { readStepMetrics } from './train-store.js';

/** The test policy, failing each turn with `error()` once `down()` holds (as a server gone, or a sandbox closed). */
const failingWhen = (down: () => boolean, error: () => Error): Policy => ({
  ...policy,
  startEpisode(context) {
    const session = policy.startEpisode(context);
    return {
      async respond(request) {
        if (down()) throw error();
        return session.respond(request);
      },
    };
  },
});

/** A signal to interrupt a run with, and the test policy whose turns then fail as an interrupt's closed sandboxes do. */
const interruptible = () => {
  const stop = new AbortController();
  const cut = failingWhen(
    () => stop.signal.aborted,
    () => new InfrastructureError('container 1cf4 was removed', { code: 'sandbox-gone' }),
  );
  return { stop, cut };
};

describe('the training loop, when attempts are lost or cut short', () => {
  it('counts the effective-group rate over retained groups: a group lost to infrastructure errors is none', async () => {
    let starts = 0;
    // count-1: every other attempt solved (a mixed group); count-2: never; count-3: the model server is down.
    const flaky: Policy = {
      ...policy,
      startEpisode(context) {
        const target = Number(context.task.id.split('-')[1]);
        const solves = target === 1 && starts++ % 2 === 0;
        let turn = 0;
        return {
          async respond() {
            if (target === 3)
              throw new InfrastructureError('503 from model server', { code: 'model-server-unavailable' });
            turn += 1;
            const message = turn === 1 ? callTool('add', { n: solves ? target : target + 1 }) : callTool('submit');
            return { message, usage: { promptTokens: 3, completionTokens: 7 } };
          },
        };
      },
    };
    const { environment } = createCounterEnvironment();
    const { tasks } = await environment.loadTasks({});
    const trainer = { ...recordingTrainer(), policy: flaky };
    const lost: unknown[] = [];
    const dir = join(await mkdtemp(join(tmpdir(), 'train-')), 'run');
    const summary = await train({
      config: { method: 'grpo', steps: 2, batchSize: 3, k: 2, seed: 1, evalK: 1, concurrency: 2, maxInfraRetries: 0 },
      environment,
      tasks: { train: tasks, test: tasks.slice(0, 1) },
      h0: createPlainHarness(),
      pool: [],
      trainer,
      dir,
      onProgress: (progress) => {
        if (progress.phase === 'update') lost.push(progress.lost);
      },
    });
    const metrics = await readStepMetrics(dir);
    expect(metrics.map((line) => [line.groups, line.retainedGroups, line.effectiveGroups])).toEqual([
      [3, 2, 1],
      [3, 2, 1],
    ]);
    // Said before each update, so a caller handing batches on can warn that they lack attempts.
    expect(lost).toEqual([
      { attempts: 2, of: 6, groups: 1 },
      { attempts: 2, of: 6, groups: 1 },
    ]);
    expect(metrics.map((line) => line.lostAttempts)).toEqual([2, 2]);
    expect(metrics[0]?.effectiveGroupRate).toBe(0.5);
    expect(summary.effectiveGroupRate).toBe(0.5);
  });

  it('stops as interrupted, recording nothing of the step, when an interrupt cuts its attempts short', async () => {
    // An interrupt closes the sandboxes under the running attempts: they end in infrastructure errors.
    // It comes before step 1 is under way (the evaluation before training ends, then the signal).
    const { stop, cut } = interruptible();
    const { base, dir } = await refusalSetup();
    const trainer = { ...recordingTrainer(), policy: cut };
    const run = train({
      ...base,
      trainer,
      config: { method: 'grpo', steps: 2, batchSize: 3, k: 2, evalK: 1, maxInfraRetries: 0 },
      dir,
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.step === 1 && progress.phase === 'base') stop.abort(new Error('interrupted by SIGTERM'));
      },
    });
    await expect(run).rejects.toThrow('interrupted by SIGTERM');
    expect(trainer.updates).toHaveLength(0);
    expect(JSON.parse(await readFile(join(dir, 'checkpoints', 'latest.json'), 'utf8')).step).toBe(0);
  });

  it('keeps a step whose evaluation an interrupt cut short, and runs that evaluation first on resume', async () => {
    // A step handed to an outside trainer must not be sampled (and handed over) again for a stop in its evaluation.
    const config = {
      method: 'grpo' as const,
      steps: 2,
      batchSize: 3,
      k: 2,
      evalK: 1,
      evalEvery: 1,
      maxInfraRetries: 0,
    };
    const whole = await refusalSetup();
    await train({ ...whole.base, config, dir: whole.dir });

    const { stop, cut } = interruptible();
    const { base, dir } = await refusalSetup();
    const first = { ...recordingTrainer(), policy: cut };
    const stopped = train({
      ...base,
      trainer: first,
      config,
      dir,
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.step === 1 && progress.phase === 'eval') stop.abort(new Error('interrupted by SIGINT'));
      },
    });
    await expect(stopped).rejects.toThrow('interrupted by SIGINT');
    expect(first.updates).toHaveLength(1);
    const kept = JSON.parse(await readFile(join(dir, 'checkpoints', 'latest.json'), 'utf8'));
    expect([kept.step, kept.evals.map((point: { step: number }) => point.step)]).toEqual([1, [0]]);
    expect((await readStepMetrics(dir)).map((line) => [line.step, line.eval])).toEqual([[1, undefined]]);

    const second = recordingTrainer();
    const seen: string[] = [];
    const summary = await train({
      ...base,
      trainer: second,
      config,
      dir,
      resume: true,
      onProgress: ({ phase, step, eval: point, catchUp }) => {
        if (point || phase === 'done') seen.push(`${phase} ${step}${catchUp ? ' catch-up' : ''}`);
      },
    });
    // Step 1 is not sampled again: one update on resume, for step 2.
    expect(second.updates).toHaveLength(1);
    // The step's line, whole with its evaluation, comes once that evaluation has run.
    expect(seen).toEqual(['eval 1 catch-up', 'done 1 catch-up', 'eval 2', 'done 2']);
    const comparable = (lines: Awaited<ReturnType<typeof readStepMetrics>>) =>
      lines.map(({ durationMs: _, ...line }) => line);
    expect(comparable(await readStepMetrics(dir))).toEqual(comparable(await readStepMetrics(whole.dir)));
    const uninterrupted = JSON.parse(await readFile(join(whole.dir, 'summary.json'), 'utf8'));
    expect(summary.evals).toEqual(uninterrupted.evals);
    expect(summary.evals.map((point) => point.step)).toEqual([0, 1, 2]);
    // Each evaluation's attempts are kept, the one run again after the stop as the uninterrupted run's.
    const outcomes = async (folder: string, step: number) =>
      (await readFile(join(folder, 'evals', `step-${step}.jsonl`), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map(({ taskId, attempt, seed, evaluation }) => [taskId, attempt, seed, evaluation?.success]);
    for (const step of [0, 1, 2]) {
      const attempts = await outcomes(dir, step);
      expect(attempts).toHaveLength(base.tasks.test.length * config.evalK);
      expect(attempts).toEqual(await outcomes(whole.dir, step));
    }
  });

  it('drops on resume an evaluation its checkpoint does not hold, when a longer run no longer makes it due', async () => {
    // Killed after the last step's evaluation was written and before its checkpoint; continued to 3 steps.
    const config = { method: 'grpo' as const, steps: 2, batchSize: 3, k: 2, evalK: 1, maxInfraRetries: 0 };
    const { base, dir } = await refusalSetup();
    await train({ ...base, config, dir });
    const path = join(dir, 'checkpoints', 'latest.json');
    const kept = JSON.parse(await readFile(path, 'utf8'));
    await writeFile(
      path,
      JSON.stringify({ ...kept, evals: kept.evals.filter((point: { step: number }) => point.step < 2) }),
    );
    const summary = await train({
      ...base,
      trainer: recordingTrainer(),
      config: { ...config, steps: 3 },
      dir,
      resume: true,
    });
    expect(summary.evals.map((point) => point.step)).toEqual([0, 3]);
    expect((await readStepMetrics(dir)).map((line) => [line.step, line.eval !== undefined])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(existsSync(join(dir, 'evals', 'step-2.jsonl'))).toBe(false);
    expect(existsSync(join(dir, 'evals', 'step-3.jsonl'))).toBe(true);
  });

  it('forgets the summary of an earlier end while a continued run goes on', async () => {
    const config = { method: 'grpo' as const, steps: 1, batchSize: 3, k: 2, evalK: 1, maxInfraRetries: 0 };
    const { base, dir } = await refusalSetup();
    await train({ ...base, config, dir });
    const { stop, cut } = interruptible();
    const stopped = train({
      ...base,
      trainer: { ...recordingTrainer(), policy: cut },
      config: { ...config, steps: 2 },
      dir,
      resume: true,
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.step === 2 && progress.phase === 'base') stop.abort(new Error('interrupted by SIGINT'));
      },
    });
    await expect(stopped).rejects.toThrow('interrupted by SIGINT');
    // The run has not ended: no summary says it has (report and compare read summary.json as the end).
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
  });

  it('stops, before any update, when every attempt of an evaluation or a step is lost to infrastructure errors', async () => {
    // The model server is up for the evaluation before training, then down.
    let down = false;
    const outage = failingWhen(
      () => down,
      () => new InfrastructureError('connect ECONNREFUSED 127.0.0.1:8000', { code: 'model-down' }),
    );
    const { base, dir } = await refusalSetup();
    const trainer = { ...recordingTrainer(), policy: outage };
    const config = { method: 'grpo' as const, steps: 2, batchSize: 3, k: 2, evalK: 1, maxInfraRetries: 0 };
    const run = train({
      ...base,
      trainer,
      config,
      dir,
      onProgress: (progress) => {
        if (progress.phase === 'eval' && progress.eval?.step === 0) down = true;
      },
    });
    await expect(run).rejects.toThrow(
      /^step 1: every attempt ended in an infrastructure error \(the first: connect ECONNREFUSED 127\.0\.0\.1:8000\); the run stops here/,
    );
    expect(trainer.updates).toHaveLength(0);
    expect(JSON.parse(await readFile(join(dir, 'checkpoints', 'latest.json'), 'utf8')).step).toBe(0);

    // Down from the start: the evaluation before training says so, instead of a Pass@k of 0.
    const fresh = await refusalSetup();
    await expect(train({ ...fresh.base, trainer, config, dir: fresh.dir })).rejects.toThrow(
      /^the evaluation under H0 before training: every attempt ended in an infrastructure error/,
    );
  });
});
