import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { InputError } from '@harness-s/core';
import { z } from 'zod';
import { RescueStudyFile, RescueStudySummary, summarizeRescueStudy } from '../rescue-study-summary.js';
import { readTaskOutcomes, type TaskOutcomes } from './task-outcomes.js';

// Everything here is read leniently: a report must still render for a reproduction that was
// interrupted, for a folder from an older version, or for a single training run.

const Rates = z.object({ passAtK: z.number(), avgAtK: z.number(), k: z.number().int() });
export type Rates = z.infer<typeof Rates>;

/** A training run's summary with what a reproduction adds to it (one line of `results.json`). */
export const ReportRecord = z.object({
  method: z.string(),
  env: z.string(),
  seed: z.number().int(),
  steps: z.number().int(),
  k: z.number().int(),
  variant: z.string().default('main'),
  /** The training run folder, relative to the report's run folder. */
  runDir: z.string().optional(),
  evalUnderH0: Rates,
  initialEvalUnderH0: Rates.nullish(),
  evals: z
    .array(z.object({ step: z.number().int(), passAtK: z.number(), avgAtK: z.number(), k: z.number().int() }))
    .default([]),
  effectiveGroupRate: z.number(),
  effectiveTokenShare: z.number(),
  rescueTriggerRate: z.number(),
  rescueSuccessRate: z.number().nullable(),
  meanReward: z.number().optional(),
  rank1: Rates.optional(),
  rank1H0: Rates.optional(),
  families: z.record(z.string(), Rates).optional(),
  h0TopShare: z.object({ before: z.number(), after: z.number() }).optional(),
  /** A study that does not read is left out, not the record. */
  rescueStudy: RescueStudySummary.optional().catch(undefined),
});
export type ReportRecord = z.infer<typeof ReportRecord>;

/** The per-step fields of `metrics.jsonl` the report draws. */
export const ReportStep = z.object({
  step: z.number().int(),
  groups: z.number().int().default(0),
  effectiveGroupRate: z.number(),
  rescueTriggered: z.number().int().default(0),
  /** Groups rescued; older runs do not say (then: the triggered ones). */
  rescued: z.number().int().optional(),
  rescueSucceeded: z.number().int().default(0),
  rescueSuccessRate: z.number().nullish(),
  harnessUsage: z.record(z.string(), z.object({ attempts: z.number(), successes: z.number() })).default({}),
  eval: Rates.optional(),
});
export type ReportStep = z.infer<typeof ReportStep>;

/** A line of `router.jsonl`: the router's top choices on the validation tasks after a re-anchoring. */
export const RouterLine = z.object({
  step: z.number().int(),
  anchoredAtStep: z.number().int().optional(),
  policyVersion: z.string().optional(),
  h0TopShare: z.number(),
  topShares: z.record(z.string(), z.number()).default({}),
});
export type RouterLine = z.infer<typeof RouterLine>;

const ProfileEntry = z.object({
  harnessId: z.string(),
  direction: z.string().nullish(),
  successRate: z.number().optional(),
  helps: z.array(z.string()).default([]),
  hurts: z.array(z.string()).default([]),
});

/** The parts of a router profile set the report shows: helps and hurts per variant. */
export const ReportProfiles = z.object({
  env: z.string().optional(),
  policyVersion: z.string().optional(),
  anchoredAtStep: z.number().int().optional(),
  tasks: z.array(z.unknown()).default([]),
  h0: ProfileEntry.optional(),
  variants: z.array(ProfileEntry).default([]),
});
export type ReportProfiles = z.infer<typeof ReportProfiles>;

/** The coverages of a sibling pool (`pools/<env>/summary.json`). */
export const ReportPoolSummary = z.object({
  validationTasks: z.number().optional(),
  poolSize: z.number().optional(),
  h0Coverage: z.number(),
  bestSingleCoverage: z.number(),
  bestSingle: z.string().nullish(),
  jointCoverage: z.number(),
  jointCoverageWithH0: z.number().optional(),
  variants: z
    .array(
      z.object({
        id: z.string(),
        direction: z.string().nullish(),
        helps: z.array(z.string()).default([]),
        hurts: z.array(z.string()).default([]),
      }),
    )
    .default([]),
});
export type ReportPoolSummary = z.infer<typeof ReportPoolSummary>;

/** One training run: its record, its per-step metrics and its router log, where present. */
export interface ReportRun {
  record: ReportRecord;
  /** Absolute path of the training run folder, when it exists. */
  dir: string | null;
  /** H0's id in the run (its config.json's `h0`; `h0` where it does not say). */
  h0: string;
  steps: ReportStep[];
  router: RouterLine[];
  /** Each test task in its first and last evaluation under H0, when the run kept them. */
  outcomes: TaskOutcomes | null;
}

/** Everything the report shows about a run folder. */
export interface RunFolder {
  dir: string;
  /** `config.json` of the folder as written (a reproduction's or a training run's). */
  config: Record<string, unknown>;
  runs: ReportRun[];
  pools: Record<string, ReportPoolSummary>;
  /** Per environment, per label (`initial`, `trained-seed-1`...). */
  profiles: Record<string, Record<string, ReportProfiles>>;
  /** What could not be read, said once in the report instead of failing it. */
  warnings: string[];
}

async function readJsonFile(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

/** Reads a JSON file with a lenient schema; a missing file is `null`, a bad one a warning. */
async function readOptional<S extends z.ZodType>(
  schema: S,
  path: string,
  warnings: string[],
): Promise<z.infer<S> | null> {
  if (!existsSync(path)) return null;
  try {
    const parsed = schema.safeParse(await readJsonFile(path));
    if (parsed.success) return parsed.data;
    warnings.push(
      `${path}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  } catch (error) {
    warnings.push(`${path}: ${(error as Error).message}`);
  }
  return null;
}

/** Reads the valid lines of a JSONL file; lines that do not parse (a torn tail) are skipped. */
async function readLines<S extends z.ZodType>(schema: S, path: string): Promise<Array<z.infer<S>>> {
  if (!existsSync(path)) return [];
  const lines: Array<z.infer<S>> = [];
  for (const raw of (await readFile(path, 'utf8')).split('\n')) {
    if (!raw.trim()) continue;
    try {
      const parsed = schema.safeParse(JSON.parse(raw));
      if (parsed.success) lines.push(parsed.data);
    } catch {
      // A torn last line of a killed run.
    }
  }
  return lines;
}

async function subfolders(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The training run folders below `train/` that hold a summary, for a folder without `results.json`. */
async function findTrainRuns(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (existsSync(join(dir, 'summary.json')) && existsSync(join(dir, 'metrics.jsonl'))) {
      found.push(dir);
      return;
    }
    if (depth === 0) return;
    for (const name of await subfolders(dir)) await walk(join(dir, name), depth - 1);
  };
  await walk(join(root, 'train'), 4);
  return found;
}

/** The records of a folder: `results.json`, else a single training run, else the summaries below `train/`. */
async function readRecords(dir: string, config: Record<string, unknown>, warnings: string[]) {
  const results = await readOptional(z.object({ records: z.array(z.unknown()) }), join(dir, 'results.json'), warnings);
  const records: Array<{ record: ReportRecord; runDir: string | null }> = [];
  const add = (value: unknown, where: string, runDir: string | null) => {
    const parsed = ReportRecord.safeParse(value);
    if (parsed.success) records.push({ record: parsed.data, runDir });
    else
      warnings.push(
        `${where}: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
      );
  };
  if (results) {
    results.records.forEach((value, index) => {
      const runDir = (value as { runDir?: unknown }).runDir;
      add(value, `results.json record ${index + 1}`, typeof runDir === 'string' ? join(dir, runDir) : null);
    });
    return records;
  }
  const single = config['command'] === 'train' ? [dir] : await findTrainRuns(dir);
  for (const runDir of single) {
    const summary = await readOptional(z.unknown(), join(runDir, 'summary.json'), warnings);
    if (summary === null) continue;
    const variant = relative(dir, runDir).split('/')[2];
    add(
      {
        variant: variant && variant !== '' ? variant : 'main',
        ...(summary as object),
        runDir: relative(dir, runDir) || '.',
      },
      join(runDir, 'summary.json'),
      runDir,
    );
  }
  return records;
}

/** Reads a reproduction folder (or a single training run folder) for the report. */
export async function readRunFolder(dir: string): Promise<RunFolder> {
  if (!existsSync(dir)) throw new InputError(`report: no folder ${dir}`, { code: 'no-run-folder' });
  const warnings: string[] = [];
  const config = (await readOptional(z.record(z.string(), z.unknown()), join(dir, 'config.json'), warnings)) ?? {};
  const records = await readRecords(dir, config, warnings);
  if (records.length === 0) {
    throw new InputError(
      `report: ${dir} is none of what a report reads: a reproduction (results.json), a finished training run or an evaluation (config.json and summary.json)`,
      { code: 'no-results' },
    );
  }
  const runs: ReportRun[] = [];
  for (const { record, runDir } of records) {
    const present = runDir !== null && existsSync(runDir) ? runDir : null;
    // A training run studied with `harness-s rescue-study` keeps its study beside its summary.
    if (!record.rescueStudy && present) {
      const study = await readOptional(RescueStudyFile, join(present, 'rescue-study.json'), warnings);
      if (study) record.rescueStudy = summarizeRescueStudy(study);
    }
    const runConfig = present
      ? await readOptional(z.object({ h0: z.string().optional() }), join(present, 'config.json'), warnings)
      : null;
    runs.push({
      record,
      dir: present,
      h0: runConfig?.h0 ?? 'h0',
      steps: present ? await readLines(ReportStep, join(present, 'metrics.jsonl')) : [],
      router: present ? await readLines(RouterLine, join(present, 'router.jsonl')) : [],
      outcomes: present ? await readTaskOutcomes(present) : null,
    });
  }
  const pools: Record<string, ReportPoolSummary> = {};
  for (const env of await subfolders(join(dir, 'pools'))) {
    const summary = await readOptional(ReportPoolSummary, join(dir, 'pools', env, 'summary.json'), warnings);
    if (summary) pools[env] = summary;
  }
  const profiles: Record<string, Record<string, ReportProfiles>> = {};
  for (const env of await subfolders(join(dir, 'profiles'))) {
    for (const label of await subfolders(join(dir, 'profiles', env))) {
      const set = await readOptional(ReportProfiles, join(dir, 'profiles', env, label, 'profiles.json'), warnings);
      if (!set) continue;
      const ofEnvironment = profiles[env] ?? {};
      ofEnvironment[label] = set;
      profiles[env] = ofEnvironment;
    }
  }
  return { dir, config, runs, pools, profiles, warnings };
}
