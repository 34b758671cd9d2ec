import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  countOf,
  type Environment,
  EvalSummary,
  evaluate,
  hasScoredTask,
  InfrastructureError,
  isScored,
  RunStore,
  readJson,
  readTrajectories,
  type Task,
  type TaskSet,
  type Trajectory,
} from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import { checkCodeLanguage } from '../base-harness.js';
import { actionsOf, createEnvironment, defaultSplit, environmentOptions } from '../environments.js';
import { duration, percent, renderTable } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import {
  checkCheckpointFlags,
  checkpointSource,
  checkServedModel,
  noteUnknownSimSkills,
  policyFromFlags,
  type SimulatedSettingsFlags,
} from '../policies.js';
import { createProgress } from '../progress.js';
import { reportLine } from '../report/index.js';
import { checkRunFolder, checkSameEvaluation, flagsForResume, flagsToRecord, recordedFlagsChecked } from '../resume.js';
import { rank1Routing } from '../routing.js';
import { loadSplitTasks, otherSplitsOf, someLoaded } from '../task-splits.js';
import { newRunFolder } from '../unrecorded-run.js';

export interface EvalFlags extends SimulatedSettingsFlags {
  env: string;
  split?: string;
  data?: string;
  policy: string;
  harness: string;
  k: number;
  /** Attempts per task, at least k (default k): Pass@k is estimated from all of them. */
  attempts?: number;
  seed: number;
  concurrency: number;
  /** Reruns of an attempt that ended in an infrastructure error (default 2). */
  infraRetries?: number;
  out?: string;
  resume?: string;
  model?: string;
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
  tokenIds?: boolean;
  logprobs?: boolean;
  requestTimeout?: number;
  maxRetries?: number;
  scoring?: string;
  /** Where dbbench episodes run, e.g. `postgres://user@host:5432/db` (default `pglite:`). */
  db?: string;
  /** Where swegym episodes run: `local` or `docker` (default: local for plans, docker for a model's commands). */
  sandbox?: string;
  /** AppWorld environment servers to run episodes on, instead of the embedded world. */
  appworldUrl?: string[];
  tasks?: string[];
  limit?: number;
  /** `h0` (default: every task under `--harness`) or `rank1` (each task under the router's top choice). */
  routing?: string;
  pool?: string;
  profiles?: string;
  /** `MODEL@URL` of LLM rankers joining Rank-1 routing's vote. */
  llmRanker?: string[];
  quiet?: boolean;
}

/**
 * Keeps the tasks named by `--tasks` and the first `--limit`; unknown ids are an error. A limit that
 * leaves tasks out reports only the unloadable tasks `--tasks` named.
 */
async function selectTasks<T extends Task>(
  taskSet: TaskSet<T>,
  flags: EvalFlags,
  environment: Environment<T>,
  /** What the tasks were loaded from: `split dev`, or a task file. */
  from: string,
  split?: string,
): Promise<TaskSet<T>> {
  let tasks = taskSet.tasks;
  let unloadable = taskSet.unloadable;
  if (flags.tasks?.length) {
    const known = new Set([...tasks.map((task) => task.id), ...taskSet.unloadable.map((item) => item.id)]);
    const missing = flags.tasks.filter((id) => !known.has(id));
    if (missing.length)
      throw new ConfigError(
        `--tasks: no task ${missing.join(', ')} in ${from}${await otherSplitsOf(environment, missing, split)}`,
        { code: 'bad-flag' },
      );
    const wanted = new Set(flags.tasks);
    tasks = tasks.filter((task) => wanted.has(task.id));
    unloadable = unloadable.filter((item) => wanted.has(item.id));
  }
  if (flags.limit !== undefined && tasks.length > flags.limit) {
    // Of the split's unloadable tasks only those --tasks named are reported: the others are not
    // among what was asked for.
    tasks = tasks.slice(0, flags.limit);
    if (!flags.tasks?.length) unloadable = [];
  }
  return { tasks, unloadable };
}

const timestamp = (): string => new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

/** What a continued evaluation may change: how it runs, not what it measures. */
const evalChangeable = [
  'concurrency',
  'infraRetries',
  'db',
  'sandbox',
  'unconfined',
  'appworldUrl',
  'baseUrl',
  'requestTimeout',
  'maxRetries',
];

/** `harness-s eval`: k attempts per task under one harness; prints Pass@k and Avg@k; writes a run folder. */
export async function runEval(
  given: EvalFlags,
  /** The flags given on the command line (default: every key of `given`); see `flagsForResume`. */
  explicit: ReadonlySet<string> = new Set(Object.keys(given)),
): Promise<EvalSummary> {
  if (given.resume && given.out) throw new ConfigError('use either --out or --resume, not both', { code: 'bad-flag' });
  await checkRunFolder('eval', given);
  const merged = given.resume ? await flagsForResume(resolve(given.resume), given, explicit, evalChangeable) : given;
  // Flags a continued run restored are the record's: a bad one is blamed on it, not on the command line.
  recordedFlagsChecked(given.resume, () => checkCheckpointFlags(merged));
  // A run folder's checkpoint is recorded as the snapshot it resolved to: a resume reads that policy.
  const source = merged.checkpoint ? await checkpointSource(merged.checkpoint, merged.env) : undefined;
  const flags = source ? { ...merged, checkpoint: source.file } : merged;
  const attempts = flags.attempts ?? flags.k;
  recordedFlagsChecked(given.resume, () => {
    if (flags.routing !== 'rank1') {
      const routingOnly = (['pool', 'profiles', 'llmRanker'] as const).filter((key) => flags[key] !== undefined);
      const named = { pool: '--pool', profiles: '--profiles', llmRanker: '--llm-ranker' };
      if (routingOnly.length > 0)
        throw new ConfigError(
          `${routingOnly.map((key) => named[key]).join(', ')}: only for --routing rank1; without it eval runs every task under --harness and would ignore ${routingOnly.length > 1 ? 'them' : 'it'}`,
          { code: 'bad-flag' },
        );
    }
    if (!Number.isInteger(attempts) || attempts < flags.k)
      throw new ConfigError(`--attempts must be at least --k (${flags.k}), got ${attempts}`, { code: 'bad-flag' });
  });
  const policy = await policyFromFlags(flags);
  const environment = createEnvironment(flags.env, { ...environmentOptions(flags), actionsFrom: actionsOf(policy) });
  if (!flags.quiet) noteUnknownSimSkills(policy, environment, (line) => process.stderr.write(`${line}\n`));
  const interrupts = listenForInterrupts({ leftovers: leftoversOf(flags.env, flags) });
  // A start that fails before recording anything takes its folder away again (see newRunFolder).
  let folder: ReturnType<typeof newRunFolder> | undefined;
  try {
    const harness = await resolveHarness(flags.env, flags.harness);
    const split = flags.data ? resolve(flags.data) : (flags.split ?? defaultSplit(environment));
    const loaded = flags.data
      ? { taskSet: await environment.loadTasks({ file: flags.data }) }
      : await loadSplitTasks(environment, split, source?.cutFrom);
    const from = flags.data ?? `split ${split}`;
    const taskSet = someLoaded(
      await selectTasks(loaded.taskSet, flags, environment, from, flags.data ? undefined : split),
      from,
    );
    checkCodeLanguage(harness, taskSet.tasks, '--harness');
    if (flags.policy === 'openai') await checkServedModel(flags);
    const splitName = loaded.name ?? taskSet.tasks[0]?.split ?? taskSet.unloadable[0]?.id.replace(/-\d+$/, '') ?? split;
    const dir = resolve(flags.resume ?? flags.out ?? join('runs', `${timestamp()}-${flags.env}-${flags.policy}`));
    if (flags.resume && !existsSync(dir))
      throw new ConfigError(`--resume: no run folder at ${dir}`, { code: 'bad-flag' });
    const resumeFrom = flags.resume ? await readTrajectories(dir) : [];
    const recorded = resumeFrom.filter(isScored).length;
    // The time the run took before: a finished run's summary says it; a killed one's attempts span it.
    const earlierDurationMs = flags.resume ? ((await recordedDuration(dir)) ?? attemptsSpan(resumeFrom)) : 0;
    const runId = dir.split('/').pop() ?? 'run';
    const routed =
      flags.routing === 'rank1'
        ? await rank1Routing(flags.env, harness, taskSet.tasks, flags, (line) => {
            if (!flags.quiet) process.stderr.write(`${line}\n`);
          })
        : null;
    const config = {
      command: 'eval',
      flags: flagsToRecord(flags),
      env: flags.env,
      split: splitName,
      data: flags.data ? resolve(flags.data) : null,
      k: flags.k,
      ...(attempts > flags.k ? { attempts } : {}),
      seed: flags.seed,
      concurrency: flags.concurrency,
      scoring: flags.scoring ?? null,
      policy: { id: policy.id, version: policy.version, ...policy.describe() },
      harness: harness.spec,
      routing: routed ? { kind: 'rank1', pool: flags.pool, profiles: flags.profiles, choices: routed.choices } : null,
      tasks: taskSet.tasks.map((task) => task.id),
      createdAt: new Date().toISOString(),
    };
    if (flags.resume)
      checkSameEvaluation(dir, (await readJson(join(dir, 'config.json'))) as Record<string, unknown>, config);
    folder = newRunFolder(dir, Boolean(flags.resume));
    const store = await RunStore.create(dir, config);

    const log = (line: string) => {
      if (!flags.quiet) process.stderr.write(`${line}\n`);
    };
    log(
      `Evaluating ${policy.id} under ${routed ? 'Rank-1 routing' : harness.spec.id} on ${flags.env}/${splitName}: ${countOf(taskSet.tasks.length, 'task')} x ${countOf(attempts, 'attempt')}` +
        (attempts > flags.k ? ` (Pass@${flags.k} estimated from all ${attempts})` : '') +
        (taskSet.unloadable.length ? ` (${taskSet.unloadable.length} not loadable)` : '') +
        (resumeFrom.length === 0
          ? ''
          : recorded >= taskSet.tasks.length * attempts
            ? ', every attempt already recorded: the summary is written again from them'
            : `, resuming with ${recorded} recorded` +
              (recorded < resumeFrom.length
                ? ` (${countOf(resumeFrom.length - recorded, 'attempt')} without a score run again)`
                : '')),
    );
    const progress = flags.quiet ? undefined : createProgress('eval', taskSet.tasks.length * attempts);
    let summary: EvalSummary;
    let trajectories: Trajectory[];
    try {
      ({ summary, trajectories } = await evaluate({
        environment,
        taskSet,
        split: splitName,
        harness,
        ...(routed ? { harnessFor: routed.harnessFor, harnessLabel: 'rank1' } : {}),
        policy,
        k: flags.k,
        attempts,
        seed: flags.seed,
        concurrency: flags.concurrency,
        ...(flags.infraRetries === undefined ? {} : { maxInfraRetries: flags.infraRetries }),
        runId,
        store,
        resumeFrom,
        earlierDurationMs,
        signal: interrupts.signal,
        onProgress: (event) =>
          progress?.update(
            event.completed,
            `${event.successes} solved attempts${event.infraErrors ? `, ${event.infraErrors} infra errors` : ''}`,
          ),
      }));
    } catch (error) {
      throw interrupts.explain(error, `finished attempts are kept in ${dir}; continue with --resume ${dir}`);
    } finally {
      progress?.stop();
      await store.close();
    }
    process.stdout.write(
      `${formatSummary(summary, environment)}\n${routed ? `${formatChoices(routed.choices)}\n` : ''}Run folder: ${dir}\n${await reportLine(dir)}`,
    );
    const lost = trajectories.find((trajectory) => !isScored(trajectory))?.infraErrors[0];
    if (lost) {
      const again = `once the cause is fixed, eval --resume ${dir} runs them again`;
      if (summary.unscoredTasks.length === summary.tasks)
        throw new InfrastructureError(
          `no attempt could be scored: every try ended in an infrastructure error (the first: ${lost.message}); ${again}`,
          { code: 'every-attempt-lost' },
        );
      process.stderr.write(
        `warning: ${countOf(summary.unscoredAttempts, 'attempt')} lost to infrastructure errors (the first: ${lost.message}); ${again}\n`,
      );
    }
    return summary;
  } catch (error) {
    throw folder ? await folder.discard(error) : error;
  } finally {
    await interrupts.releaseAfter(() => environment.close());
  }
}

/** How many tasks Rank-1 routing sent to each harness, most first (per task: the run's config.json). */
export function formatChoices(choices: Record<string, string>): string {
  const counts = new Map<string, number>();
  for (const harnessId of Object.values(choices)) counts.set(harnessId, (counts.get(harnessId) ?? 0) + 1);
  const ranked = [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return `Rank-1 routing chose: ${ranked.map(([harnessId, tasks]) => `${harnessId} for ${countOf(tasks, 'task')}`).join(', ')} (each task's choice: routing.choices in config.json)`;
}

/** The `durationMs` of a run folder's summary; undefined when it has none (a run killed before it ended). */
async function recordedDuration(dir: string): Promise<number | undefined> {
  try {
    const { durationMs } = (await readJson(join(dir, 'summary.json'))) as { durationMs?: unknown };
    return typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs >= 0 ? durationMs : undefined;
  } catch {
    // No summary, or a torn one.
    return undefined;
  }
}

/** From the first recorded attempt's start to the last one's end: the time a killed session ran. */
function attemptsSpan(trajectories: readonly Trajectory[]): number {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const { timings } of trajectories) {
    const start = Date.parse(timings.startedAt);
    if (!Number.isFinite(start)) continue;
    first = Math.min(first, start);
    last = Math.max(last, start + timings.totalMs);
  }
  return last > first ? last - first : 0;
}

/** The tasks solved at least once. */
const solvedIds = (summary: EvalSummary): string[] =>
  summary.perTask.filter((task) => task.successes > 0).map((task) => task.id);

/** The keys every evaluation's summary has; the environment's own (`extendSummary`) are the others. */
const coreSummaryKeys = new Set(Object.keys(EvalSummary.shape));

/**
 * The evaluation table: overall and per category, what the environment added to the summary (in
 * its own words, `summaryLines`, or by name), then what could not be loaded.
 */
export function formatSummary(summary: EvalSummary, environment?: Pick<Environment, 'summaryLines'>): string {
  const k = summary.k;
  // Tasks without a category are counted under 'all': the total row says it when they are all there is.
  const categories = Object.entries(summary.perCategory).sort(([a], [b]) => a.localeCompare(b));
  // A category none of whose tasks has a scored attempt has no rate (every try an infrastructure error).
  const rate = (value: number, category?: string) => (hasScoredTask(summary, category) ? percent(value) : '-');
  const rows = (categories.length === 1 && categories[0]?.[0] === 'all' ? [] : categories).map(([category, rates]) => [
    category === 'all' ? '(none)' : category,
    String(rates.tasks),
    rate(rates.passAtK, category),
    rate(rates.avgAtK, category),
  ]);
  const table = renderTable(
    ['category', 'tasks', `Pass@${k}`, `Avg@${k}`],
    [...rows, ['all', String(summary.tasks), rate(summary.passAtK), rate(summary.avgAtK)]],
  );
  const lines = [
    '',
    `${summary.env}/${summary.split} | policy ${summary.policyVersion !== summary.policy && summary.policyVersion !== `${summary.policy}@0` ? summary.policyVersion : summary.policy} | harness ${summary.harness} | k=${k}${summary.attempts ? ` from ${summary.attempts} attempts per task` : ''} | seed ${summary.seed}`,
    table,
    '',
    `solved ${summary.solved}/${summary.tasks - summary.unscoredTasks.length} tasks at least once` +
      (summary.unscoredTasks.length
        ? ` (${countOf(summary.unscoredTasks.length, 'task')} with no scored attempt, left out of the rates)`
        : '') +
      ` | infrastructure errors ${summary.infraErrors}` +
      (summary.unscoredAttempts ? ` (${countOf(summary.unscoredAttempts, 'attempt')} unscored)` : '') +
      ` | ${duration(summary.durationMs)}`,
  ];
  const added = Object.keys(summary).filter((key) => !coreSummaryKeys.has(key));
  if (environment?.summaryLines) lines.push(...environment.summaryLines(summary));
  else if (added.length) lines.push(`${summary.env} metrics in summary.json: ${added.join(', ')}`);
  for (const item of summary.unloadable) lines.push(`not loadable: ${item.id}: ${item.reason}`);
  // The oracle solves every loadable task and doing nothing solves none, or the environment is wrong.
  const wrong = summary.policy === 'oracle' ? summary.unsolved : summary.policy === 'empty' ? solvedIds(summary) : [];
  if (wrong.length)
    lines.push(
      summary.policy === 'oracle'
        ? `the oracle did not solve ${wrong.join(', ')}: an environment's oracle plan must solve every loadable task (its trajectories say where it went wrong)`
        : `the empty policy solved ${wrong.join(', ')}: an environment's evaluation must fail a task where nothing was done`,
    );
  return lines.join('\n');
}
