import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BatchExportTrainer,
  ConfigError,
  countOf,
  InfrastructureError,
  lockRunFolder,
  RandomRouter,
  readTrainConfig,
  requirePool,
  type Trainer,
  type TrainMethod,
  type TrainSummary,
  train,
} from '@harness-s/core';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { createQueueRunner, formatQueueEvent, pingRedis, type QueueRunner, redactRedisUrl } from '@harness-s/queue';
import { AdaptiveRouter, readProfiles } from '@harness-s/router';
import { builtInDiagnosis, failureRankerWeight, warnWithoutFailures, withFailureRanker } from '../diagnosis.js';
import { actionsOf, createEnvironment, environmentOptions } from '../environments.js';
import { percent, renderTable } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { profileSummarizer, routerRankers } from '../llm.js';
import { checkServedModel, noteUnknownSimSkills, simulatedSettings, simulatedSettingsText } from '../policies.js';
import { loadPoolHarnesses } from '../pool.js';
import { reportLine } from '../report/index.js';
import { checkRunFolder, flagsForResume, flagsToRecord, recordedFlagsChecked } from '../resume.js';
import { keepSplitFile, keptSplit, loadTaskSplits, type RecordedSplit, recordedSplit } from '../task-splits.js';
import { newRunFolder } from '../unrecorded-run.js';
import { batchHook, checkStrayHook } from './on-batch.js';

export type { TrainFlags } from './train-flags.js';

import { checkCodeLanguage, resolveBase } from '../base-harness.js';
import {
  advantageConfig,
  checkExtension,
  parseShape,
  refuseUnusedFlags,
  servedPolicy,
  type TrainFlags,
  trainChangeable,
  trainSettingFlags,
} from './train-flags.js';
import { anchoringProgress, batchText, phaseProgress, rescueText, resumeLine } from './train-progress.js';

/** The variants a run used most, with what they solved: a line, or nothing for H0 alone. */
function variantsLine(summary: TrainSummary, h0: string): string {
  const variants = Object.entries(summary.harnessUsage ?? {})
    .filter(([id]) => id !== h0)
    .sort(([a, x], [b, y]) => y.attempts - x.attempts || a.localeCompare(b));
  if (variants.length === 0) return '';
  const shown = variants.slice(0, 6).map(([id, usage]) => `${id} ${usage.successes}/${usage.attempts}`);
  return `variants used (solved/attempts): ${shown.join(', ')}${variants.length > 6 ? `, and ${variants.length - 6} more` : ''}\n`;
}

/** `harness-s train`: complementary harness rescue training with the simulated policy. */
export async function runTrain(
  given: TrainFlags,
  /** The flags given on the command line (default: every key of `given`); see `flagsForResume`. */
  explicit: ReadonlySet<string> = new Set(Object.keys(given)),
): Promise<TrainSummary> {
  if (given.resume && given.out) throw new ConfigError('use either --out or --resume, not both', { code: 'bad-flag' });
  await checkRunFolder('train', given);
  // A continued run is this process's before its config.json is touched: a second one is refused first.
  const lock = given.resume ? await lockRunFolder(resolve(given.resume)) : undefined;
  try {
    return await trainWith(given, explicit);
  } finally {
    await lock?.release();
  }
}

async function trainWith(given: TrainFlags, explicit: ReadonlySet<string>): Promise<TrainSummary> {
  const flags = given.resume
    ? await flagsForResume(resolve(given.resume), given, explicit, trainChangeable, trainSettingFlags)
    : given;
  if (given.resume) await checkExtension(resolve(given.resume), flags);
  const sim = flags.sim ?? (await simulatedSettings(flags)) ?? {};
  // Flags the loop would refuse are refused before any work.
  const rescue = recordedFlagsChecked(given.resume, () => (flags.rescue ? parseShape(flags.rescue) : undefined));
  if (flags.k < 2 && !flags.quiet)
    process.stderr.write(
      'warning: --k 1: a group of one attempt has no spread, so its advantage is 0 and GRPO learns nothing from it; use --k 2 or more to train\n',
    );
  recordedFlagsChecked(given.resume, () => {
    requirePool(flags.method, Boolean(flags.pool));
    refuseUnusedFlags(flags, explicit);
  });
  // Another policy than the simulated one: a model served elsewhere, trained by an external trainer.
  const served = servedPolicy(flags);
  // The simulated policy walks the environment's plans; a model writes its own actions.
  const environment = createEnvironment(flags.env, {
    ...environmentOptions(flags),
    actionsFrom: served ? actionsOf(served) : 'plan',
  });
  if (!served && !flags.quiet) noteUnknownSimSkills(sim, environment, (line) => process.stderr.write(`${line}\n`));
  const interrupts = listenForInterrupts({ leftovers: leftoversOf(flags.env, flags) });
  let runner: QueueRunner | undefined;
  let anchoring: ReturnType<typeof anchoringProgress> | undefined;
  // A model's attempts take minutes a phase: a bar for them from the start.
  const attemptsBar = phaseProgress({ always: served !== undefined });
  // A start that fails before recording anything takes its folder away again (see newRunFolder).
  let folder: ReturnType<typeof newRunFolder> | undefined;
  try {
    const pool = flags.pool ? await loadPoolHarnesses(flags.pool, flags.env) : [];
    if (flags.method === 'mixture' && flags.mixtureSize !== undefined && flags.mixtureSize > pool.length)
      throw new ConfigError(
        `--mixture-size ${flags.mixtureSize}: the pool ${flags.pool} has ${countOf(pool.length, 'variant')}; give at most ${pool.length}`,
        { code: 'bad-flag' },
      );
    const h0 = await resolveBase(flags.env, flags.base, pool);
    const dir = resolve(
      flags.resume ?? flags.out ?? join('runs', `train-${flags.env}-${flags.method}-s${flags.seed}-${Date.now()}`),
    );
    folder = newRunFolder(dir, Boolean(flags.resume));
    // A continued run cuts its tasks from what it recorded: a task file from the run's own copy.
    const recorded: RecordedSplit | undefined =
      flags.resume && existsSync(join(dir, 'config.json'))
        ? ((await readTrainConfig(dir)) as RecordedSplit)
        : undefined;
    const tasks = await loadTaskSplits(environment, (recorded && recordedSplit(dir, recorded)) ?? flags.split);
    checkCodeLanguage(h0, [...tasks.train, ...tasks.validation, ...tasks.test], '--base');
    if (served && flags.policy === 'openai') await checkServedModel(flags, dir);
    if (served && flags.policy === 'openai' && flags.onBatch === undefined && !flags.quiet)
      process.stderr.write(
        'warning: no --on-batch: the served model is not updated between steps, so this run only collects batches (in its batches/ folder)\n',
      );
    const kept = recorded ? keptSplit(recorded) : await keepSplitFile(dir, tasks);
    const log = (line: string) => {
      if (!flags.quiet) process.stderr.write(`${line}\n`);
    };
    if (flags.resume) {
      await checkStrayHook(dir);
      log(await resumeLine(dir, flags.steps, flags.evalEvery));
    }
    const summarize = profileSummarizer(flags.summarizer, h0, log);
    // A model's anchoring is most of a run's episodes; the simulated policy's takes a second.
    anchoring = served && !flags.quiet ? anchoringProgress() : undefined;
    const failureRanker = failureRankerWeight(flags.failureRanker);
    const startProfiles = flags.profiles ? await readProfiles(flags.profiles, { env: flags.env }) : undefined;
    if (failureRanker !== undefined && startProfiles && flags.profiles)
      warnWithoutFailures(startProfiles, flags.profiles, log);
    const router =
      flags.router === 'random'
        ? new RandomRouter()
        : new AdaptiveRouter({
            mode: flags.router === 'fixed' ? 'fixed' : 'adaptive',
            ...(flags.reanchorEvery ? { reanchorEvery: flags.reanchorEvery } : {}),
            ...(flags.profileK ? { profileK: flags.profileK } : {}),
            ...(flags.profileTasks !== undefined ? { profileTasks: flags.profileTasks } : {}),
            ...(flags.carryOver !== undefined ? { carryOver: flags.carryOver } : {}),
            ...(flags.rescueMemory ? { rescueMemory: true } : {}),
            ...(failureRanker === undefined ? {} : { diagnose: builtInDiagnosis(flags.env, h0.spec) }),
            ...(startProfiles ? { profiles: startProfiles } : {}),
            rankers: withFailureRanker(routerRankers(flags.llmRanker, h0, log), failureRanker),
            ...(summarize ? { summarize } : {}),
            ...(anchoring ? { onProfiling: anchoring.onProfiling } : {}),
            onAnchor: (profiles) =>
              log(`router: profiles anchored on ${profiles.policyVersion} (${profiles.tasks.length} validation tasks)`),
          });
    if (flags.redis) {
      const reachable = await pingRedis(flags.redis, 5000);
      if (!reachable.ok)
        throw new InfrastructureError(
          `--redis: cannot reach Redis at ${redactRedisUrl(flags.redis)}: ${reachable.reason}`,
          {
            code: 'queue-unreachable',
          },
        );
      runner = createQueueRunner({
        redisUrl: flags.redis,
        runDir: dir,
        onEvent: (event) => {
          const line = formatQueueEvent(event);
          if (line) log(line);
        },
      });
      log(`Attempts run on workers: queue ${runner.queueName} in ${redactRedisUrl(flags.redis)}`);
    }
    if (flags.profileTasks !== undefined && flags.profileTasks > tasks.validation.length)
      log(
        `note: --profile-tasks ${flags.profileTasks}, but there are ${tasks.validation.length} validation tasks: profiles are anchored on them all`,
      );
    const rescueWidth = rescue?.variants ?? flags.k;
    if (flags.method === 'harness-s' && pool.length > 0 && pool.length < rescueWidth)
      log(
        `note: the pool has ${pool.length} variant(s), fewer than the ${rescueWidth} a rescue asks for: they take the missing places in turn, so rescue groups keep their size`,
      );
    const trainer: Trainer = served
      ? new BatchExportTrainer({
          policy: served,
          ...(flags.onBatch
            ? {
                onBatch: batchHook(
                  flags.onBatch,
                  dir,
                  log,
                  interrupts.signal,
                  flags.onBatchTimeout === undefined ? undefined : flags.onBatchTimeout * 1000,
                ),
              }
            : {}),
        })
      : new SimulatedGrpoTrainer(
          new SimulatedPolicy(sim),
          flags.learningRate ? { learningRate: flags.learningRate } : {},
        );
    log(
      `Training ${flags.method} on ${flags.env}: ${tasks.train.length} train / ${tasks.test.length} test tasks (${tasks.source}), ` +
        `${countOf(flags.steps, 'step')} x ${batchText(flags.batchSize, tasks.train.length)} x ${countOf(flags.k, 'attempt')}, pool ${pool.length}, seed ${flags.seed}` +
        (served
          ? `; policy ${served.id} (${served.version}), batches to ${join(dir, 'batches')}${flags.onBatch ? ', each handed to --on-batch' : ''}`
          : simulatedSettingsText(sim)
            ? `; simulated policy: ${simulatedSettingsText(sim)}`
            : ''),
    );
    const summary = await train({
      signal: interrupts.signal,
      config: {
        method: flags.method as TrainMethod,
        steps: flags.steps,
        batchSize: flags.batchSize,
        k: flags.k,
        seed: flags.seed,
        evalK: flags.evalK,
        concurrency: flags.concurrency,
        ...(flags.infraRetries === undefined ? {} : { maxInfraRetries: flags.infraRetries }),
        ...(rescue ? { rescue } : {}),
        ...(flags.rescueContext ? { rescueContext: flags.rescueContext as 'variant' | 'h0' } : {}),
        ...(flags.evalEvery ? { evalEvery: flags.evalEvery } : {}),
        ...(flags.skipInitialEval ? { evalBefore: false } : {}),
        ...(flags.mixtureSize ? { mixtureSize: flags.mixtureSize } : {}),
        ...advantageConfig(flags),
      },
      environment,
      tasks,
      h0,
      pool,
      router,
      trainer,
      dir,
      resume: Boolean(flags.resume),
      ...(runner ? { runner } : {}),
      record: {
        flags: flagsToRecord(flags),
        // A resumed run keeps its record, not the copy it read the tasks from.
        splits: typeof recorded?.splits === 'string' ? recorded.splits : tasks.source,
        ...(kept ? { split: kept } : {}),
        ...(flags.method === 'harness-s' ? { router: flags.router ?? 'adaptive' } : {}),
        ...(runner ? { rollouts: `queue ${runner.queueName}` } : {}),
      },
      onProgress: (progress) => {
        if (progress.attempts) {
          if (!flags.quiet) attemptsBar.attempts(progress.step, progress.phase, progress.attempts);
          return;
        }
        if (progress.lost) {
          // Before the update: what the trainer (and --on-batch) is handed lacks these attempts.
          const { attempts, of, groups } = progress.lost;
          process.stderr.write(
            `warning: step ${progress.step}: ${attempts} of ${countOf(of, 'attempt')} lost to infrastructure errors after their retries; they are left out of the update, and ${countOf(groups, 'group')} train${groups === 1 ? 's' : ''} on fewer attempts or not at all\n`,
          );
        }
        if (progress.phase === 'done' && progress.metrics) {
          const m = progress.metrics;
          log(
            `step ${progress.step}/${progress.steps}: effective groups ${percent(m.effectiveGroupRate)}, all failed ${m.rescueTriggered}/${m.groups}` +
              (flags.method === 'harness-s' || flags.method === 'h0-resample' ? rescueText(m) : '') +
              (m.droppedGroups > 0 ? `, ${m.droppedGroups} without spread dropped` : '') +
              `, mean reward ${m.meanReward.toFixed(3)}` +
              (m.eval
                ? ` | under H0: Pass@${m.eval.k} ${percent(m.eval.passAtK)}, Avg@${m.eval.k} ${percent(m.eval.avgAtK)}`
                : ''),
          );
        } else if (progress.phase === 'eval' && progress.eval?.step === 0) {
          const { k, passAtK, avgAtK } = progress.eval;
          log(`before training, under H0: Pass@${k} ${percent(passAtK)}, Avg@${k} ${percent(avgAtK)}`);
        } else if (served && !progress.eval && !progress.metrics) {
          // A model's phases take minutes: say when each starts.
          const phases: Partial<Record<typeof progress.phase, string>> = {
            base: `${countOf(flags.k, 'attempt')} per task ${flags.method === 'mixture' ? 'over the mixture' : 'under H0'}`,
            rescue: `rescuing ${countOf(progress.failedGroups ?? 0, 'group')} that failed every attempt`,
            eval: `evaluating under H0 on ${countOf(tasks.test.length, 'test task')}`,
          };
          const what = phases[progress.phase];
          if (what)
            log(`${progress.step === 0 ? 'before training' : `step ${progress.step}/${progress.steps}`}: ${what}...`);
        }
      },
    }).catch((error: unknown) => {
      if (InfrastructureError.isInstance(error) && error.code === 'every-attempt-lost')
        throw new InfrastructureError(`${error.message} (--resume ${dir})`, { code: error.code, cause: error });
      throw interrupts.explain(error, `the run continues from its last checkpoint with --resume ${dir}`);
    });
    process.stdout.write(
      `\n${renderTable(
        [
          'method',
          'seed',
          `Pass@${summary.evalUnderH0.k}`,
          `Avg@${summary.evalUnderH0.k}`,
          'effective groups',
          'effective tokens',
          'all-failed groups',
          'rescue success',
        ],
        [
          [
            summary.method,
            String(summary.seed),
            percent(summary.evalUnderH0.passAtK),
            percent(summary.evalUnderH0.avgAtK),
            percent(summary.effectiveGroupRate),
            percent(summary.effectiveTokenShare),
            percent(summary.rescueTriggerRate),
            // grpo and mixture never rescue: their all-failed groups stay as they are, with no success rate.
            summary.rescueSuccessRate === null ? '-' : percent(summary.rescueSuccessRate),
          ],
        ],
      )}\n${variantsLine(summary, h0.spec.id)}Run folder: ${dir}\n${await reportLine(dir)}`,
    );
    return summary;
  } catch (error) {
    throw folder ? await folder.discard(error) : error;
  } finally {
    // An interrupted anchoring or phase leaves no live progress bar behind.
    anchoring?.stop();
    attemptsBar.stop();
    // The run's queue is removed from Redis at the end; a failure to do so must not hide the run's own error.
    await interrupts.releaseAfter(async () => {
      await runner
        ?.close()
        .catch((error) => process.stderr.write(`queue: could not remove the run's queue: ${error}\n`));
      await environment.close();
    });
  }
}
