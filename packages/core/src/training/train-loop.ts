import { join } from 'node:path';
import { everyAttemptLost, inProcessRunner } from '../attempt-runner.js';
import { ConfigError, failureOf, namingFile } from '../errors.js';
import { formatZodError } from '../jsonl.js';
import { deriveSeed } from '../random.js';
import type { Task } from '../task.js';
import { isScored, type Trajectory } from '../trajectory.js';
import { groupAdvantages } from './advantages.js';
import { type AttemptPlan, basePlans, groupIdsOf, rescuePlans } from './attempt-plans.js';
import { batchFor, groupSlice } from './batches.js';
import { checkResumedRun } from './resumed-run.js';
import { outcomesByHarness, RandomRouter, type RescueRouter } from './router.js';
import { scoredTrajectory } from './scored.js';
import type { StepMetrics } from './step-metrics.js';
import { requirePool, TrainConfig } from './train-config.js';
import { evalDueAfter, h0Evaluator } from './train-eval.js';
import { checkTrainOptions, checkUpdate, type TrainOptions } from './train-options.js';
import {
  type Checkpoint,
  type EvalPoint,
  emptyTotals,
  readStepMetrics,
  TrainStore,
  type TrainTotals,
  trainFiles,
} from './train-store.js';
import { sumHarnessUsage, type TrainSummary, trainSummary } from './train-summary.js';
import type { ScoredGroup } from './trainer.js';

const completionTokens = (trajectory: Trajectory): number => trajectory.usage.completionTokens;

/**
 * Complementary harness rescue training. Each step: K attempts per task under H0 (or a fixed
 * mixture); a group with a success is kept; an all-failed group triggers rescue (`harness-s`:
 * the router's distinct variants; `h0-resample`: fresh attempts under H0) and the rescue group
 * replaces it; group-relative advantages; one trainer update. Metrics per step, evaluations under
 * H0 on the test split, and a checkpoint after every step.
 */
export async function train<T extends Task>(options: TrainOptions<T>): Promise<TrainSummary> {
  const parsed = TrainConfig.safeParse(options.config);
  if (!parsed.success)
    throw new ConfigError(`training config: ${formatZodError(parsed.error)}`, { code: 'bad-train-config' });
  const config = parsed.data;
  const pool = options.pool ?? [];
  const router: RescueRouter<T> = options.router ?? new RandomRouter();
  const { environment, h0, trainer } = options;
  requirePool(config.method, pool.length);
  checkTrainOptions(options, pool);
  if (config.method === 'harness-s' && router.needsValidationTasks?.(config.steps) && !options.tasks.validation?.length)
    throw new ConfigError(
      `router ${router.id} needs validation tasks (its needsValidationTasks says so), and tasks.validation is empty: give the split's validation tasks${router.withoutValidationTasks ? `, or ${router.withoutValidationTasks}` : ''}`,
      { code: 'no-validation-tasks' },
    );
  const mixture = [h0, ...pool.slice(0, config.mixtureSize)];
  trainer.attach?.({ dir: options.dir, h0 });

  const record = {
    command: 'train',
    env: environment.id,
    config,
    h0: h0.spec.id,
    pool: pool.map((harness) => harness.spec.id),
    // Only harness-s routes; another method's record names no router it did not use.
    ...(config.method === 'harness-s' ? { router: router.id } : {}),
    trainer: trainer.id,
    policy: trainer.policy.describe(),
    trainTasks: options.tasks.train.map((task) => task.id),
    testTasks: options.tasks.test.map((task) => task.id),
    ...options.record,
  };
  const { store, checkpoint } = await TrainStore.open(
    options.dir,
    record,
    options.resume ?? false,
    (recorded, trained) => checkResumedRun(options.dir, recorded, record, trained),
  );
  // The folder is this process's until the run ends, finished or stopped.
  try {
    const totals: TrainTotals = checkpoint?.totals ?? emptyTotals();
    const evals: EvalPoint[] = checkpoint?.evals ?? [];
    if (checkpoint) {
      const checkpointPath = join(options.dir, trainFiles.checkpoint);
      namingFile(checkpointPath, () => trainer.restore(checkpoint.trainer));
      namingFile(checkpointPath, () => router.restore(checkpoint.router));
    }
    // The run's wall time: what the checkpoint kept of earlier sessions, and this one's.
    const earlierMs = totals.elapsedMs ?? 0;
    const startedAt = performance.now();
    const elapsedMs = () => earlierMs + performance.now() - startedAt;

    const evaluateUnderH0 = h0Evaluator(options, config, environment, h0, trainer);

    const runner = options.runner ?? inProcessRunner(config.concurrency);
    const runPlans = async (
      plans: readonly AttemptPlan<T>[],
      step: number,
      groupIds: readonly string[],
      phase: 'base' | 'rescue',
    ): Promise<Trajectory[]> => {
      let done = 0;
      const onAttempt = () =>
        options.onProgress?.({ step, steps: config.steps, phase, attempts: { done: ++done, total: plans.length } });
      // Said before the first attempt ends: how many the phase runs (containers may take a while to start).
      if (plans.length)
        options.onProgress?.({ step, steps: config.steps, phase, attempts: { done: 0, total: plans.length } });
      const requests = plans.map((plan) => ({
        attemptId: `${groupIds[plan.slot]}#${plan.harness.spec.id}#${plan.attempt}`,
        task: plan.task,
        harness: plan.harness,
        attempt: plan.attempt,
        seed: deriveSeed(config.seed, step, plan.task.id, ...plan.seedParts),
      }));
      const trajectories = await runner.run({
        runId: options.dir,
        environment,
        policy: trainer.policy,
        requests,
        maxInfraRetries: config.maxInfraRetries,
        ...(options.signal ? { signal: options.signal } : {}),
        onAttempt,
      });
      // Attempts an interrupt cut short are no outage and nothing to train on: the step stops here.
      options.signal?.throwIfAborted();
      return trajectories.map((trajectory, index) => {
        const plan = plans[index] as AttemptPlan<T>;
        return {
          ...trajectory,
          id: requests[index]?.attemptId ?? trajectory.id,
          training: { step, groupId: groupIds[plan.slot] as string, role: plan.role, retained: false },
        };
      });
    };

    // The checkpoint of the run as it stands after `step`.
    const checkpointAfter = (step: number): Checkpoint => {
      totals.elapsedMs = elapsedMs();
      return {
        schemaVersion: 1,
        step,
        trainer: trainer.state(),
        router: router.state(),
        totals,
        evals,
        savedAt: new Date().toISOString(),
        env: environment.id,
      };
    };

    if (!checkpoint) {
      if (config.evalBefore !== false) evals.push(await evaluateUnderH0(0));
      await store.writeCheckpoint(checkpointAfter(0));
    } else if (evalDueAfter(config, checkpoint.step) && !evals.some((point) => point.step === checkpoint.step)) {
      // Stopped during the evaluation after its last step: that step is kept, its evaluation runs now.
      evals.push(await evaluateUnderH0(checkpoint.step, true));
      await store.commitEval(evals.at(-1) as EvalPoint, checkpointAfter(checkpoint.step));
      // The step's line, now whole, is reported here: the stop came before its 'done'.
      const line = (await readStepMetrics(options.dir)).find((metrics) => metrics.step === checkpoint.step);
      if (line)
        options.onProgress?.({ step: line.step, steps: config.steps, phase: 'done', metrics: line, catchUp: true });
    }

    for (let step = (checkpoint?.step ?? 0) + 1; step <= config.steps; step += 1) {
      options.signal?.throwIfAborted();
      const stepStart = performance.now();
      // Only routed rescue needs the router (its re-anchoring runs the whole pool on validation).
      // What it did (re-anchoring) is checkpointed at once: a run killed later in the step keeps it.
      const anchored =
        config.method === 'harness-s' &&
        (await router.beforeStep?.({
          step,
          policy: trainer.policy,
          environment,
          validationTasks: options.tasks.validation ?? [],
          h0,
          pool,
          seed: config.seed,
          concurrency: config.concurrency,
          ...(options.runner ? { runner: options.runner } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        })) === true;
      if (anchored) await store.writeCheckpoint(checkpointAfter(step - 1));
      const batch = batchFor(options.tasks.train, step, config.batchSize, config.seed);
      const policyVersion = trainer.policy.version;

      // Base attempts: K per task, under H0 or rotated over the fixed mixture.
      options.onProgress?.({ step, steps: config.steps, phase: 'base' });
      const groupIds = groupIdsOf(batch, step);
      const base = await runPlans(basePlans(batch, config, h0, mixture), step, groupIds, 'base');
      // Nothing to learn from, and nothing a trainer should be handed: the run stops before the update.
      if (!base.some(isScored)) throw everyAttemptLost(`step ${step}`, base);

      // Rescue for every group whose scored base attempts all failed.
      const triggered = batch.map((_, slot) => {
        const scored = groupSlice(slot, base, config.k).filter(isScored);
        return scored.length > 0 && scored.every((trajectory) => !trajectory.evaluation.success);
      });
      const rescues = config.method === 'harness-s' || config.method === 'h0-resample';
      const failedGroups = triggered.filter(Boolean).length;
      // Said only when there is a group to rescue.
      if (rescues && failedGroups > 0)
        options.onProgress?.({ step, steps: config.steps, phase: 'rescue', failedGroups });
      const rescueGroups: AttemptPlan<T>[][] = rescues
        ? await rescuePlans({
            batch,
            triggered,
            config,
            step,
            h0,
            pool,
            router,
            failures: (slot) => groupSlice(slot, base, config.k).filter(isScored),
          })
        : [];
      const rescueFlat = await runPlans(rescueGroups.flat(), step, groupIds, 'rescue');

      // Retained groups and their advantages; attempts lost to infrastructure errors are left out.
      const scoredGroups: ScoredGroup<T>[] = [];
      const metrics = {
        effectiveGroups: 0,
        effectiveTokens: 0,
        retainedTokens: 0,
        rescued: 0,
        rescueSucceeded: 0,
        droppedGroups: 0,
        retainedReward: 0,
        retainedAttempts: 0,
        /** Groups left with a scored attempt: all but those lost entirely to infrastructure errors. */
        retainedGroups: 0,
        /** Groups that lost an attempt to infrastructure errors, and train on fewer. */
        shortGroups: 0,
        /** Their lost attempts, of the attempts of the groups trained on (a replaced group is not). */
        lostAttempts: 0,
        keptAttempts: 0,
      };
      const harnessUsage: Record<string, { attempts: number; successes: number }> = {};
      const allTrajectories: Trajectory[] = [];
      let rescueOffset = 0;
      for (const [slot, task] of batch.entries()) {
        const baseGroup = groupSlice(slot, base, config.k);
        const rescueCount = rescueGroups[slot]?.length ?? 0;
        const rescueGroup = rescueFlat.slice(rescueOffset, rescueOffset + rescueCount);
        rescueOffset += rescueCount;
        const rescued = rescueGroup.length > 0;
        if (rescued) metrics.rescued += 1;
        const kept = rescued ? rescueGroup : baseGroup;
        const retained = kept.filter(isScored);
        metrics.keptAttempts += kept.length;
        if (retained.length < kept.length) {
          metrics.shortGroups += 1;
          metrics.lostAttempts += kept.length - retained.length;
        }
        if (rescued && retained.some((trajectory) => trajectory.evaluation.success)) metrics.rescueSucceeded += 1;
        if (rescued && config.method === 'harness-s')
          router.observe?.({ task, step, outcomes: outcomesByHarness(retained) });
        const { advantages, hasSignal } = groupAdvantages(
          retained.map((trajectory) => trajectory.evaluation.reward),
          config.advantage,
        );
        const tokens = retained.reduce((sum, trajectory) => sum + completionTokens(trajectory), 0);
        metrics.retainedTokens += tokens;
        metrics.retainedAttempts += retained.length;
        if (retained.length > 0) metrics.retainedGroups += 1;
        metrics.retainedReward += retained.reduce((sum, trajectory) => sum + trajectory.evaluation.reward, 0);
        if (hasSignal) {
          metrics.effectiveGroups += 1;
          metrics.effectiveTokens += tokens;
        }
        const keep = hasSignal || config.advantage.zeroVariance === 'keep';
        if (!keep) metrics.droppedGroups += 1;
        if (keep && retained.length > 0) {
          scoredGroups.push({
            groupId: groupIds[slot] as string,
            taskId: task.id,
            task,
            trajectories: retained.map((trajectory, index) =>
              scoredTrajectory(
                trajectory,
                advantages[index] ?? 0,
                // Only rescued attempts may be re-rendered under H0; a mixture's train as rendered.
                rescued && trajectory.harnessId !== h0.spec.id ? config.rescueContext : 'variant',
                task,
                h0,
              ),
            ),
          });
        }
        const retainedIds = new Map(retained.map((trajectory, index) => [trajectory.id, advantages[index] ?? 0]));
        // Kept for the task, but without spread and left out of the update: no advantage.
        const droppedIds = new Set(keep ? [] : retained.map((trajectory) => trajectory.id));
        for (const trajectory of [...baseGroup, ...rescueGroup]) {
          const usage = harnessUsage[trajectory.harnessId] ?? { attempts: 0, successes: 0 };
          harnessUsage[trajectory.harnessId] = usage;
          usage.attempts += 1;
          if (trajectory.evaluation?.success) usage.successes += 1;
          const advantage = retainedIds.get(trajectory.id);
          allTrajectories.push({
            ...trajectory,
            training: {
              step,
              groupId: groupIds[slot] as string,
              role: trajectory.training?.role ?? 'base',
              retained: advantage !== undefined,
              ...(droppedIds.has(trajectory.id) ? { dropped: true } : advantage !== undefined ? { advantage } : {}),
            },
          });
        }
      }
      const { lostAttempts } = metrics;
      options.onProgress?.({
        step,
        steps: config.steps,
        phase: 'update',
        ...(lostAttempts > 0
          ? { lost: { attempts: lostAttempts, of: metrics.keptAttempts, groups: metrics.shortGroups } }
          : {}),
      });
      let updated: Awaited<ReturnType<typeof trainer.update>>;
      try {
        updated = await trainer.update(scoredGroups, step);
      } catch (error) {
        throw failureOf(`trainer ${trainer.id}: update of step ${step} failed`, error);
      }
      const update = checkUpdate(trainer, updated, step);

      const baseScored = base.filter(isScored);
      const infraErrors = [...base, ...rescueFlat].reduce((sum, trajectory) => sum + trajectory.infraErrors.length, 0);
      const triggeredCount = triggered.filter(Boolean).length;
      const stepMetrics: StepMetrics = {
        step,
        policyVersion,
        groups: batch.length,
        retainedGroups: metrics.retainedGroups,
        effectiveGroups: metrics.effectiveGroups,
        effectiveGroupRate: metrics.retainedGroups ? metrics.effectiveGroups / metrics.retainedGroups : 0,
        effectiveTokens: metrics.effectiveTokens,
        retainedTokens: metrics.retainedTokens,
        effectiveTokenShare: metrics.retainedTokens ? metrics.effectiveTokens / metrics.retainedTokens : 0,
        rescueTriggered: triggeredCount,
        rescueTriggerRate: triggeredCount / batch.length,
        rescued: metrics.rescued,
        rescueSucceeded: metrics.rescueSucceeded,
        rescueSuccessRate: metrics.rescued > 0 ? metrics.rescueSucceeded / metrics.rescued : null,
        droppedGroups: metrics.droppedGroups,
        meanReward: metrics.retainedAttempts ? metrics.retainedReward / metrics.retainedAttempts : 0,
        baseSuccessRate: baseScored.length
          ? baseScored.filter((trajectory) => trajectory.evaluation.success).length / baseScored.length
          : 0,
        harnessUsage,
        infraErrors,
        lostAttempts,
        trainer: update.stats,
        durationMs: performance.now() - stepStart,
      };
      totals.groups += batch.length;
      // A checkpoint from before retained groups were counted had every group retained.
      totals.retainedGroups = (totals.retainedGroups ?? totals.groups - batch.length) + metrics.retainedGroups;
      totals.effectiveGroups += metrics.effectiveGroups;
      totals.effectiveTokens += metrics.effectiveTokens;
      totals.retainedTokens += metrics.retainedTokens;
      totals.rescueTriggered += triggeredCount;
      totals.rescued += metrics.rescued;
      totals.rescueSucceeded += metrics.rescueSucceeded;
      totals.retainedAttempts += metrics.retainedAttempts;
      totals.retainedReward += metrics.retainedReward;
      totals.infraErrors += infraErrors;
      await store.commitStep(allTrajectories, stepMetrics, checkpointAfter(step));
      // After the step is kept: a run stopped during its evaluation resumes with that evaluation.
      if (evalDueAfter(config, step)) {
        const point = await evaluateUnderH0(step);
        evals.push(point);
        stepMetrics.eval = { passAtK: point.passAtK, avgAtK: point.avgAtK, k: point.k };
        await store.commitEval(point, checkpointAfter(step));
      }
      options.onProgress?.({ step, steps: config.steps, phase: 'done', metrics: stepMetrics });
    }

    // From every step's line (a resumed run's log holds each step once).
    const stepLines = await readStepMetrics(options.dir);
    const summary = trainSummary({
      config,
      env: environment.id,
      policyVersion: trainer.policy.version,
      totals,
      evals,
      harnessUsage: sumHarnessUsage(stepLines),
      droppedGroups: stepLines.reduce((sum, line) => sum + line.droppedGroups, 0),
      trainTasks: options.tasks.train.length,
      testTasks: options.tasks.test.length,
      durationMs: elapsedMs(),
    });
    await store.writeSummary(summary);
    return summary;
  } finally {
    await store.close();
  }
}
