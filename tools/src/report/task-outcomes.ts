import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evalStepsIn } from '@harness-s/core';

/** A test task's scored attempts in one evaluation under H0, and how many solved it. */
export interface TaskScore {
  solved: number;
  attempts: number;
}

/** Each test task in a run's first and last evaluation under H0 (`evals/step-N.jsonl`). */
export interface TaskOutcomes {
  firstStep: number;
  lastStep: number;
  tasks: Array<{ taskId: string; before: TaskScore; after: TaskScore }>;
}

/** The scored attempts of one evaluation file, per task; unscored attempts (infrastructure errors) are not counted. */
async function scoresOf(path: string): Promise<Map<string, TaskScore>> {
  const scores = new Map<string, TaskScore>();
  for (const raw of (await readFile(path, 'utf8')).split('\n')) {
    if (!raw.trim()) continue;
    let attempt: { taskId?: unknown; evaluation?: { success?: unknown } | null };
    try {
      attempt = JSON.parse(raw);
    } catch {
      continue; // a torn last line
    }
    if (typeof attempt.taskId !== 'string' || !attempt.evaluation) continue;
    const score = scores.get(attempt.taskId) ?? { solved: 0, attempts: 0 };
    score.attempts += 1;
    if (attempt.evaluation.success === true) score.solved += 1;
    scores.set(attempt.taskId, score);
  }
  return scores;
}

/** A run's first and last evaluations, task by task; null for a run that kept none (or only one). */
export async function readTaskOutcomes(runDir: string): Promise<TaskOutcomes | null> {
  const folder = join(runDir, 'evals');
  const steps = await evalStepsIn(runDir);
  const firstStep = steps[0];
  const lastStep = steps.at(-1);
  if (firstStep === undefined || lastStep === undefined || firstStep === lastStep) return null;
  const before = await scoresOf(join(folder, `step-${firstStep}.jsonl`));
  const after = await scoresOf(join(folder, `step-${lastStep}.jsonl`));
  const none = { solved: 0, attempts: 0 };
  const tasks = [...new Set([...before.keys(), ...after.keys()])]
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((taskId) => ({ taskId, before: before.get(taskId) ?? none, after: after.get(taskId) ?? none }));
  return { firstStep, lastStep, tasks };
}
