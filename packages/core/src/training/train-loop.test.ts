import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Harness } from '../harness.js';
import { readTrajectories } from '../run-store.js';
import { policy, recordingRunner, recordingTrainer, refusalSetup, run, variant } from './__fixtures__/rescue-run.js';
import type { RescueRouter } from './router.js';
import { train } from './train-loop.js';
import { policySnapshotSteps, readPolicySnapshot, readStepMetrics } from './train-store.js';

describe('the training loop', () => {
  it("reports each phase's attempts as it starts and as they end, counted to the phase's total", async () => {
    const { base, dir } = await refusalSetup();
    const seen: string[] = [];
    await train({
      ...base,
      config: { method: 'grpo', steps: 1, batchSize: 3, k: 2, seed: 1, evalK: 1, concurrency: 2 },
      dir,
      onProgress: ({ step, phase, attempts }) => {
        if (attempts) seen.push(`${step} ${phase} ${attempts.done}/${attempts.total}`);
      },
    });
    // Before training and after step 1: 3 test tasks x 1; step 1: 3 tasks x 2 under H0.
    expect(seen).toEqual([
      ...[0, 1, 2, 3].map((done) => `0 eval ${done}/3`),
      ...[0, 1, 2, 3, 4, 5, 6].map((done) => `1 base ${done}/6`),
      ...[0, 1, 2, 3].map((done) => `1 eval ${done}/3`),
    ]);
  });

  it('says the rescue phase only for a step with groups to rescue, with how many', async () => {
    const { base } = await refusalSetup();
    const rescues = async (train_: typeof base.tasks.train) => {
      const { dir } = await refusalSetup();
      const seen: string[] = [];
      await train({
        ...base,
        tasks: { train: train_, test: base.tasks.test },
        pool: [variant('good-a'), variant('bad-b'), variant('good-c')],
        config: { method: 'harness-s', steps: 1, batchSize: 3, k: 2, seed: 1, evalK: 1, concurrency: 2 },
        dir,
        onProgress: ({ phase, failedGroups, attempts }) => {
          if (phase === 'rescue' && !attempts) seen.push(`rescue ${failedGroups}`);
        },
      });
      return seen;
    };
    // count-1 is solved under H0; count-2 and count-3 fail every attempt.
    expect(await rescues(base.tasks.train)).toEqual(['rescue 2']);
    expect(await rescues(base.tasks.train.filter((task) => task.id === 'count-1'))).toEqual([]);
  });

  it('refuses to resume a folder with no run, saying so by code', async () => {
    const { base, dir } = await refusalSetup();
    const config = { method: 'grpo' as const, steps: 1, batchSize: 1, k: 1, seed: 1, evalK: 1 };
    await expect(train({ ...base, config, dir, resume: true })).rejects.toMatchObject({
      code: 'no-run',
      message: expect.stringMatching(/^resume: no training run in .* \(no config.json\) to continue/),
    });
  });

  it('refuses a router that needs validation tasks when there are none, with the advice the router gives', async () => {
    const { base, dir } = await refusalSetup();
    const config = { method: 'harness-s' as const, steps: 1, batchSize: 1, k: 1, seed: 1, evalK: 1 };
    const refusal = (router: RescueRouter) =>
      train({ ...base, config, dir, router, pool: [variant('good-a')] }).then(
        () => 'ran',
        (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
      );
    const needing = (id: string, advice?: string): RescueRouter => ({
      id,
      select: async () => [],
      needsValidationTasks: () => true,
      ...(advice === undefined ? {} : { withoutValidationTasks: advice }),
      state: () => null,
      restore() {},
    });
    const stem =
      "needs validation tasks (its needsValidationTasks says so), and tasks.validation is empty: give the split's validation tasks";
    // The id does not matter: a router named like the built-in one gets no advice it did not give.
    expect(await refusal(needing('adaptive'))).toBe(`no-validation-tasks: router adaptive ${stem}`);
    expect(await refusal(needing('mine', 'load mine.json first'))).toBe(
      `no-validation-tasks: router mine ${stem}, or load mine.json first`,
    );
  });

  it('grpo keeps all-failed groups, with no rescue and no signal from them', async () => {
    const { summary, trainer, dir } = await run('grpo');
    // Per step 3 tasks: count-1 solved under H0 (all succeed: no signal), count-2/3 all fail.
    expect(summary.effectiveGroupRate).toBe(0);
    expect(summary.rescueTriggerRate).toBeCloseTo(2 / 3, 12);
    // Nothing was rescued, so there is no rescue success rate (not a rate of 0).
    expect(summary.rescueSuccessRate).toBeNull();
    expect(trainer.updates).toHaveLength(2);
    const trajectories = await readTrajectories(dir);
    expect(
      trajectories.every((trajectory) => trajectory.harnessId === 'plain' && trajectory.training?.role === 'base'),
    ).toBe(true);
    expect(trajectories).toHaveLength(2 * 3 * 2);
  });

  it('harness-s replaces an all-failed group by a rescue group of distinct variants', async () => {
    const { summary, trainer, dir } = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 } });
    const trajectories = await readTrajectories(dir);
    const rescue = trajectories.filter((trajectory) => trajectory.training?.role === 'rescue');
    expect(rescue).toHaveLength(2 * 2 * 3);
    for (const groupId of new Set(rescue.map((trajectory) => trajectory.training?.groupId))) {
      const harnesses = rescue
        .filter((trajectory) => trajectory.training?.groupId === groupId)
        .map((trajectory) => trajectory.harnessId);
      expect(new Set(harnesses).size).toBe(3);
    }
    // Rescue groups mix good (success) and bad (failure) variants: effective, and retained.
    expect(summary.rescueSuccessRate).toBe(1);
    expect(summary.effectiveGroupRate).toBeCloseTo(2 / 3, 12);
    expect(rescue.every((trajectory) => trajectory.training?.retained)).toBe(true);
    const replaced = trajectories.filter(
      (trajectory) => trajectory.training?.role === 'base' && trajectory.taskId !== 'count-1',
    );
    expect(replaced.every((trajectory) => !trajectory.training?.retained)).toBe(true);
    const rescued = trainer.updates[0]?.find((group) => group.taskId === 'count-2');
    const advantages = rescued?.trajectories.map((item) => Math.sign(item.advantage));
    expect(advantages?.sort()).toEqual([-1, 1, 1]);
    const metrics = await readStepMetrics(dir);
    expect(metrics.map((line) => line.step)).toEqual([1, 2]);
    expect(metrics[0]?.harnessUsage['bad-b']).toEqual({ attempts: 2, successes: 0 });
    // The whole run's usage per harness: both steps.
    expect(summary.harnessUsage?.['bad-b']).toEqual({ attempts: 4, successes: 0 });
    expect(summary.harnessUsage?.['good-a']).toEqual({ attempts: 4, successes: 4 });
    expect(summary.harnessUsage?.['plain']).toEqual({ attempts: 2 * 3 * 2, successes: 2 * 2 });
    expect(metrics[1]?.eval).toBeDefined();
  });

  it('fills a rescue group to its full size when the pool has fewer variants than it asks for', async () => {
    // Five places, three variants: the chosen ones take the missing places in turn.
    const { dir } = await run('harness-s', { rescue: { variants: 5, attemptsPerVariant: 1 } });
    const rescue = (await readTrajectories(dir)).filter((trajectory) => trajectory.training?.role === 'rescue');
    expect(rescue).toHaveLength(2 * 2 * 5);
    const group = rescue.filter((trajectory) => trajectory.training?.groupId === rescue[0]?.training?.groupId);
    const perHarness = new Map<string, number>();
    for (const { harnessId } of group) perHarness.set(harnessId, (perHarness.get(harnessId) ?? 0) + 1);
    expect([...perHarness.values()].sort()).toEqual([1, 2, 2]);
    // Repeated variants get attempts of their own: every attempt id once.
    expect(new Set(rescue.map((trajectory) => trajectory.id)).size).toBe(rescue.length);
  });

  it('tells the router what each rescue gave, in batch order, and checkpoints what it learned', async () => {
    const reports: Array<{ step: number; task: string; outcomes: unknown }> = [];
    const failuresSeen: Array<{ task: string; ids: string[]; failed: boolean }> = [];
    const router: RescueRouter = {
      id: 'observing',
      async select(request) {
        failuresSeen.push({
          task: request.task.id,
          ids: (request.failures ?? []).map((trajectory) => trajectory.id),
          failed: (request.failures ?? []).every((trajectory) => trajectory.evaluation?.success === false),
        });
        return request.pool.slice(0, request.count).map((spec) => spec.id);
      },
      observe(report) {
        reports.push({ step: report.step, task: report.task.id, outcomes: report.outcomes });
      },
      state: () => ({ observed: reports.length }),
      restore() {},
    };
    const { dir } = await run('harness-s', { rescue: { variants: 2, attemptsPerVariant: 2 } }, router);
    const batches = (await readTrajectories(dir)).filter((trajectory) => trajectory.training?.role === 'rescue');
    expect(reports.map((report) => `${report.step}:${report.task}`)).toEqual([
      ...new Set(batches.map((trajectory) => trajectory.training?.groupId)),
    ]);
    // good-a solves every attempt, bad-b none.
    expect(reports[0]?.outcomes).toEqual([
      { harnessId: 'good-a', attempts: 2, successes: 2 },
      { harnessId: 'bad-b', attempts: 2, successes: 0 },
    ]);
    const checkpoint = JSON.parse(await readFile(join(dir, 'checkpoints', 'latest.json'), 'utf8'));
    expect(checkpoint.router).toEqual({ observed: reports.length });
    // Each request held the failed group it rescues: the task's K attempts under H0, all failed.
    const recorded = await readTrajectories(dir);
    const baseOf = (step: number, task: string) =>
      recorded
        .filter(({ training }) => training?.groupId === `${step}:${task}` && training.role === 'base')
        .map(({ id }) => id);
    expect(failuresSeen.map(({ task, failed }) => ({ task, failed }))).toEqual(
      reports.map(({ task }) => ({ task, failed: true })),
    );
    for (const [index, report] of reports.entries()) {
      expect(failuresSeen[index]?.ids).toHaveLength(2);
      expect(failuresSeen[index]?.ids).toEqual(baseOf(report.step, report.task));
    }
  });

  it('keeps the policy of every step, before training included', async () => {
    const { dir } = await run('grpo');
    expect(await policySnapshotSteps(dir)).toEqual([0, 1, 2]);
    // The recording trainer's state counts its updates: the snapshot of step N holds N.
    expect((await readPolicySnapshot(dir, 0)).trainer).toEqual({ updates: 0 });
    expect((await readPolicySnapshot(dir, 2)).trainer).toEqual({ updates: 2 });
    await expect(readPolicySnapshot(dir, 3)).rejects.toThrow(/no policy snapshot of step 3 \(it has steps 0, 1, 2\)/);
  });

  it('h0-resample rescues with fresh attempts under H0 only', async () => {
    const { summary, dir } = await run('h0-resample');
    const trajectories = await readTrajectories(dir);
    expect(
      trajectories
        .filter((trajectory) => trajectory.training?.role === 'rescue')
        .every((trajectory) => trajectory.harnessId === 'plain'),
    ).toBe(true);
    expect(summary.rescueSuccessRate).toBe(0);
    expect(new Set(trajectories.map((trajectory) => trajectory.id)).size).toBe(trajectories.length);
  });

  it('mixture spreads every task over H0 and the pool, without rescue', async () => {
    const { dir } = await run('mixture');
    const trajectories = await readTrajectories(dir);
    expect(trajectories.some((trajectory) => trajectory.training?.role === 'rescue')).toBe(false);
    expect(new Set(trajectories.map((trajectory) => trajectory.harnessId)).size).toBeGreaterThan(2);
  });

  it("runs the evaluations under H0 on the run's attempt runner too, with attempt ids of their own", async () => {
    const recording = recordingRunner();
    const { ids } = recording;
    const routed = await run('h0-resample', {}, undefined, recordingTrainer(), recording);
    const here = await run('h0-resample');
    expect(routed.summary.evals).toEqual(here.summary.evals);
    expect(routed.summary.evals.map((point) => point.step)).toEqual([0, 2]);
    // The three counter tasks, once each (evalK 1), before training and after the last step.
    expect(ids.filter((id) => id.startsWith('eval-0:'))).toEqual([
      'eval-0:count-1#plain#0',
      'eval-0:count-2#plain#0',
      'eval-0:count-3#plain#0',
    ]);
    expect(ids.filter((id) => id.startsWith('eval-2:'))).toHaveLength(3);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaves out the evaluation before the first step when asked, and has no baseline then', async () => {
    const recording = recordingRunner();
    const { ids } = recording;
    const { summary } = await run('h0-resample', { evalBefore: false }, undefined, recordingTrainer(), recording);
    expect(summary.evals.map((point) => point.step)).toEqual([2]);
    expect(summary.initialEvalUnderH0).toBeNull();
    expect(summary.evalUnderH0).toEqual((await run('h0-resample')).summary.evalUnderH0);
    expect(ids.filter((id) => id.startsWith('eval-'))).toHaveLength(3);
  });

  it('refuses a method that needs a pool without one, and a bad config with its field', async () => {
    const { base, dir } = await refusalSetup();
    await expect(train({ ...base, config: { method: 'harness-s', steps: 1 }, dir })).rejects.toThrow(
      /needs a sibling pool/,
    );
    await expect(train({ ...base, config: { method: 'grpo', steps: 0 }, dir })).rejects.toThrow(
      /training config: steps/,
    );
  });

  it('refuses what a caller from JavaScript gets wrong, by name: specs for harnesses, a trainer without a policy', async () => {
    const { base, dir } = await refusalSetup();
    const config = { method: 'harness-s' as const, steps: 1 };
    const spec = variant('good-a').spec as unknown as Harness;
    await expect(train({ ...base, config, pool: [variant('good-c'), spec], dir })).rejects.toThrow(
      'pool[1] must be a Harness: createHarness(spec) of a harness spec (loadPool returns specs)',
    );
    await expect(
      train({
        ...base,
        config: { method: 'grpo', steps: 1 },
        trainer: { ...base.trainer, policy: undefined } as never,
        dir,
      }),
    ).rejects.toThrow(/^trainer must be a Trainer/);
    // A trainer or router without the methods a checkpoint needs is refused before any attempt.
    const { state: _state, ...stateless } = base.trainer;
    await expect(
      train({ ...base, config: { method: 'grpo', steps: 1 }, trainer: stateless as never, dir }),
    ).rejects.toThrow(
      'trainer must be a Trainer: a policy, update(groups, step), state() and restore(state); it lacks state',
    );
    const router = { id: 'half', state: () => null } as unknown as RescueRouter;
    await expect(train({ ...base, config, pool: [variant('good-a')], router, dir })).rejects.toThrow(
      'router must be a RescueRouter: select(request), state() and restore(state); it lacks select, restore',
    );
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('gives a task drawn twice in one batch (an epoch ends inside it) a group and attempt ids of its own', async () => {
    // Three tasks, four places: the second epoch's first task is one of the first epoch's.
    const { summary, dir, trainer } = await run('harness-s', { steps: 1, batchSize: 4 });
    const trajectories = await readTrajectories(dir);
    expect(new Set(trajectories.map((trajectory) => trajectory.id)).size).toBe(trajectories.length);
    const groups = [...new Set(trajectories.map((trajectory) => trajectory.training?.groupId))];
    expect(groups).toHaveLength(4);
    const again = groups.filter((id) => id?.endsWith('@2'));
    expect(again).toHaveLength(1);
    expect(again[0]).toMatch(/^1:count-\d@2$/);
    expect(trajectories.filter((trajectory) => trajectory.training?.groupId === again[0])[0]?.id).toMatch(
      /^1:count-\d@2#/,
    );
    // Both places of the task hold a group of K base attempts, kept apart.
    const repeated = again[0]?.replace(/@2$/, '');
    for (const id of [repeated, again[0]])
      expect(
        trajectories.filter(
          (trajectory) => trajectory.training?.groupId === id && trajectory.training?.role === 'base',
        ),
      ).toHaveLength(2);
    expect(summary.steps).toBe(1);
    expect(new Set(trainer.updates[0]?.map((group) => group.groupId)).size).toBe(trainer.updates[0]?.length);
  });

  it('refuses a trainer whose update returns no policy, another policy than its own or odd stats, and a router that names a variant twice', async () => {
    const silent = { ...recordingTrainer(), update: async () => undefined as never };
    await expect(run('grpo', {}, undefined, silent)).rejects.toThrow(
      'trainer recording: update() of step 1 returned no policy ({ policy, stats })',
    );
    // A trainer whose policy stays behind what its update returned: the next step would act with the old one.
    const base = recordingTrainer();
    const newer = { ...policy, version: 'v1' };
    const behind = { ...base, update: async () => ({ policy: newer, stats: {} }) };
    await expect(run('grpo', {}, undefined, behind)).rejects.toThrow(
      "trainer recording: update() of step 1 returned policy version 'v1', but the trainer's policy is still 'v0'",
    );
    // Stats metrics.jsonl could not hold, refused when returned rather than when the run is read back.
    for (const [stats, shown] of [
      [{ loss: Number.NaN }, 'stats.loss = NaN'],
      [{ loss: 'low' }, 'stats.loss = "low"'],
    ] as const) {
      const odd = { ...recordingTrainer(), update: async () => ({ policy, stats }) as never };
      await expect(run('grpo', {}, undefined, odd)).rejects.toThrow(
        `trainer recording: update() of step 1 returned ${shown}; stats must be finite numbers`,
      );
    }
    const twice: RescueRouter = {
      id: 'twice',
      select: async ({ pool }) => [pool[0]?.id ?? '', pool[0]?.id ?? ''],
      state: () => null,
      restore() {},
    };
    await expect(run('harness-s', { rescue: { variants: 2, attemptsPerVariant: 1 } }, twice)).rejects.toThrow(
      /router twice chose 'good-a' twice for count-\d \(step 1\); a rescue set is distinct variants/,
    );
    const many: RescueRouter = { ...twice, id: 'many', select: async ({ pool }) => pool.map((spec) => spec.id) };
    await expect(run('harness-s', { rescue: { variants: 2, attemptsPerVariant: 1 } }, many)).rejects.toThrow(
      /router many chose 3 variants for count-\d \(step 1\); a rescue asks for at most 2/,
    );
    const stranger: RescueRouter = { ...twice, id: 'stranger', select: async () => ['v-nope'] };
    await expect(run('harness-s', {}, stranger)).rejects.toThrow(
      /^router stranger chose 'v-nope' for count-\d \(step 1\), which is not in the pool \(\["good-a","bad-b","good-c"\]\)$/,
    );
    for (const [answer, shown] of [
      [undefined, 'undefined'],
      ['good-a', '"good-a"'],
      [[1], '[1]'],
    ] as const) {
      const odd = { ...twice, id: 'odd', select: async () => answer } as unknown as RescueRouter;
      await expect(run('harness-s', {}, odd)).rejects.toThrow(`router odd answered ${shown} for task count-`);
    }
    // A trainer's own failure is named by trainer and step, its error kept as the cause.
    const fire = new Error('GPU on fire');
    const burning = { ...recordingTrainer(), update: async () => Promise.reject(fire) };
    const burnt = await run('grpo', {}, undefined, burning).catch((error: unknown) => error as Error);
    expect(burnt).toBeInstanceOf(Error);
    expect((burnt as Error).message).toBe('trainer recording: update of step 1 failed: GPU on fire');
    expect((burnt as Error).cause).toBe(fire);
    // A router's own failure is named by router, task and step, its error kept as the cause.
    const kaput = new TypeError('kaput');
    for (const select of [
      async () => Promise.reject(kaput),
      () => {
        throw kaput;
      },
    ]) {
      const broken = { ...twice, id: 'broken', select } as RescueRouter;
      const failed = await run('harness-s', {}, broken).catch((error: unknown) => error as Error);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(/^router broken failed on task count-\d \(step 1\): kaput$/);
      expect((failed as Error).cause).toBe(kaput);
    }
  });
});
