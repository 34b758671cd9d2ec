import type { Trajectory } from '@harness-s/core';
import { z } from 'zod';
import { InstanceReport } from './grading.js';

/**
 * SWE-bench's run report, computed from an evaluation's trajectories and put into `summary.json`
 * under `swebench`. One prediction is one attempt: ids are instance ids when every attempt is
 * attempt 0 (k = 1), `<instance id>#<attempt>` otherwise.
 *
 * - submitted: the agent called `submit` (the others were autosubmitted at the step limit).
 * - completed: a non-empty patch that applied and whose tests ran to the end with a trusted log.
 * - resolved / unresolved: completed and FULL / not FULL (partial ids are listed too).
 * - empty_patch: the patch was empty (graded all the same; never resolves).
 * - error: the patch did not apply, the tests did not finish or their log was not trusted, or the
 *   attempt ended in an infrastructure error (not scored).
 */
export const SwebenchRunReport = z.object({
  total_instances: z.number().int(),
  submitted_instances: z.number().int(),
  completed_instances: z.number().int(),
  resolved_instances: z.number().int(),
  unresolved_instances: z.number().int(),
  empty_patch_instances: z.number().int(),
  error_instances: z.number().int(),
  submitted_ids: z.array(z.string()),
  completed_ids: z.array(z.string()),
  incomplete_ids: z.array(z.string()),
  resolved_ids: z.array(z.string()),
  unresolved_ids: z.array(z.string()),
  partial_ids: z.array(z.string()),
  empty_patch_ids: z.array(z.string()),
  error_ids: z.array(z.string()),
  schema_version: z.literal(2),
});
export type SwebenchRunReport = z.infer<typeof SwebenchRunReport>;

/** The SWE-bench run report of an evaluation. */
export function swebenchRunReport(trajectories: readonly Trajectory[]): SwebenchRunReport {
  const ordered = [...trajectories].sort((a, b) => a.taskId.localeCompare(b.taskId) || a.attempt - b.attempt);
  const singleAttempt = ordered.every((trajectory) => trajectory.attempt === 0);
  const idOf = (trajectory: Trajectory) =>
    singleAttempt ? trajectory.taskId : `${trajectory.taskId}#${trajectory.attempt}`;
  const ids = {
    submitted: [] as string[],
    completed: [] as string[],
    incomplete: [] as string[],
    resolved: [] as string[],
    unresolved: [] as string[],
    partial: [] as string[],
    empty: [] as string[],
    error: [] as string[],
  };
  for (const trajectory of ordered) {
    const id = idOf(trajectory);
    const details = trajectory.evaluation?.details ?? {};
    if (details['submitted'] === true) ids.submitted.push(id);
    const parsed = InstanceReport.safeParse(details['report']);
    if (!trajectory.evaluation || !parsed.success) {
      ids.error.push(id);
      ids.incomplete.push(id);
      continue;
    }
    const report = parsed.data;
    if (!report.patch_exists) {
      ids.empty.push(id);
      ids.incomplete.push(id);
      continue;
    }
    if (report.error !== null) {
      ids.error.push(id);
      ids.incomplete.push(id);
      continue;
    }
    ids.completed.push(id);
    if (report.resolved) ids.resolved.push(id);
    else ids.unresolved.push(id);
    if (report.resolution === 'PARTIAL') ids.partial.push(id);
  }
  return {
    total_instances: ordered.length,
    submitted_instances: ids.submitted.length,
    completed_instances: ids.completed.length,
    resolved_instances: ids.resolved.length,
    unresolved_instances: ids.unresolved.length,
    empty_patch_instances: ids.empty.length,
    error_instances: ids.error.length,
    submitted_ids: ids.submitted,
    completed_ids: ids.completed,
    incomplete_ids: ids.incomplete,
    resolved_ids: ids.resolved,
    unresolved_ids: ids.unresolved,
    partial_ids: ids.partial,
    empty_patch_ids: ids.empty,
    error_ids: ids.error,
    schema_version: 2,
  };
}

/** What `harness-s eval` prints of `summary.swebench` (see `Environment.summaryLines`). */
export function swebenchReportLines(summary: Readonly<Record<string, unknown>>): string[] {
  const parsed = SwebenchRunReport.safeParse(summary['swebench']);
  if (!parsed.success) return [];
  const report = parsed.data;
  return [
    `SWE-bench: ${report.resolved_instances} of ${report.total_instances} predictions resolved | ` +
      `${report.completed_instances} completed, ${report.submitted_instances} submitted, ` +
      `${report.empty_patch_instances} empty patches, ${report.error_instances} errors (summary.json: swebench)`,
  ];
}
