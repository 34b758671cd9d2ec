import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Trajectory } from '@harness-s/core';
import { z } from 'zod';
import { rescuingMethods } from '../compared-runs.js';
import type { ReportRun } from './run-folder.js';
import { unique } from './stats.js';

/** A group of the trajectory viewer: a task's attempts under H0 and the rescue attempts that replaced them. */
export interface PickedGroup {
  env: string;
  method: string;
  variant: string;
  seed: number;
  step: number;
  taskId: string;
  groupId: string;
  base: Trajectory[];
  rescue: Trajectory[];
}

// Only what choosing a group needs; the chosen groups' lines are then parsed in full.
const GroupFields = z.object({
  taskId: z.string(),
  harnessId: z.string(),
  evaluation: z.object({ success: z.boolean() }).nullable(),
  training: z.object({ step: z.number().int(), groupId: z.string(), role: z.enum(['base', 'rescue']) }),
});

interface Candidate {
  step: number;
  groupId: string;
  taskId: string;
  /** Higher is more telling: a mixed rescue group with several variants is best. */
  score: number;
  lines: unknown[];
}

/** How telling a group is for the viewer; 0 when it is no rescue that worked. */
function scoreGroup(lines: ReadonlyArray<z.infer<typeof GroupFields>>): number {
  const rescue = lines.filter((line) => line.training.role === 'rescue');
  const base = lines.filter((line) => line.training.role === 'base');
  const rescueSuccesses = rescue.filter((line) => line.evaluation?.success).length;
  if (rescue.length === 0 || rescueSuccesses === 0 || base.length === 0) return 0;
  const mixed = rescueSuccesses < rescue.length ? 2 : 1;
  return mixed * 10 + unique(rescue.map((line) => line.harnessId)).length;
}

/**
 * The rescue groups of one training run where a rescue attempt succeeded, the best of each step.
 * Reads `trajectories.jsonl` line by line; a step's lines are contiguous (a step is committed in
 * one append), so only one step is held in memory at a time.
 */
async function candidatesOf(dir: string): Promise<Candidate[]> {
  const path = join(dir, 'trajectories.jsonl');
  if (!existsSync(path)) return [];
  const candidates: Candidate[] = [];
  let step: number | null = null;
  let buffer: Array<{ fields: z.infer<typeof GroupFields>; value: unknown }> = [];
  const flush = () => {
    const groups = new Map<string, typeof buffer>();
    for (const entry of buffer) {
      const group = groups.get(entry.fields.training.groupId) ?? [];
      group.push(entry);
      groups.set(entry.fields.training.groupId, group);
    }
    let best: Candidate | null = null;
    for (const [groupId, entries] of groups) {
      const score = scoreGroup(entries.map((entry) => entry.fields));
      const first = entries[0];
      if (score > 0 && first && (!best || score > best.score)) {
        best = {
          step: first.fields.training.step,
          groupId,
          taskId: first.fields.taskId,
          score,
          lines: entries.map((entry) => entry.value),
        };
      }
    }
    if (best) candidates.push(best);
    buffer = [];
  };
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const raw of lines) {
    if (!raw.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue; // a torn last line
    }
    const fields = GroupFields.safeParse(value);
    if (!fields.success) continue;
    if (step !== null && fields.data.training.step !== step) flush();
    step = fields.data.training.step;
    buffer.push({ fields: fields.data, value });
  }
  flush();
  return candidates;
}

/** `count` items spread evenly over a list (first, last and between), in order. */
function spreadPick<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count === 1) return items.slice(-1);
  return Array.from(
    { length: count },
    (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T,
  );
}

function toGroup(run: ReportRun, candidate: Candidate): PickedGroup {
  const trajectories = candidate.lines.flatMap((line) => {
    const parsed = Trajectory.safeParse(line);
    return parsed.success ? [parsed.data] : [];
  });
  const byAttempt = (a: Trajectory, b: Trajectory) => a.harnessId.localeCompare(b.harnessId) || a.attempt - b.attempt;
  return {
    env: run.record.env,
    method: run.record.method,
    variant: run.record.variant,
    seed: run.record.seed,
    step: candidate.step,
    taskId: candidate.taskId,
    groupId: candidate.groupId,
    base: trajectories.filter((trajectory) => trajectory.training?.role === 'base').sort(byAttempt),
    rescue: trajectories.filter((trajectory) => trajectory.training?.role === 'rescue').sort(byAttempt),
  };
}

/**
 * A few telling groups per environment for the trajectory viewer: rescue groups of the main
 * harness-s runs (else of any rescuing method) where a variant solved what H0 failed K times,
 * spread over training and over distinct tasks.
 */
/** How many rescued groups the report shows per environment. */
export const groupsPerEnvironment = 3;

export async function pickGroups(
  runs: readonly ReportRun[],
  perEnvironment = groupsPerEnvironment,
): Promise<PickedGroup[]> {
  const picked: PickedGroup[] = [];
  for (const env of unique(runs.map((run) => run.record.env))) {
    const rank = (run: ReportRun) =>
      (run.record.method === 'harness-s' ? 0 : run.record.method === 'h0-resample' ? 2 : 4) +
      (run.record.variant === 'main' ? 0 : 1);
    const ordered = runs
      .filter((run) => run.record.env === env && run.dir && rescuingMethods.has(run.record.method))
      .sort((a, b) => rank(a) - rank(b) || a.record.seed - b.record.seed);
    const chosen: PickedGroup[] = [];
    const tasks = new Set<string>();
    for (const run of ordered) {
      if (chosen.length >= perEnvironment) break;
      const fresh = (await candidatesOf(run.dir as string)).filter((candidate) => !tasks.has(candidate.taskId));
      const distinct = fresh.filter(
        (candidate, index) => fresh.findIndex((other) => other.taskId === candidate.taskId) === index,
      );
      for (const candidate of spreadPick(distinct, perEnvironment - chosen.length)) {
        tasks.add(candidate.taskId);
        chosen.push(toGroup(run, candidate));
      }
    }
    picked.push(...chosen);
  }
  return picked;
}
