import type { Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import type { InstanceReport } from './grading.js';
import { swebenchReportLines, swebenchRunReport } from './run-report.js';

const report = (fields: Partial<InstanceReport>): InstanceReport => ({
  patch_is_None: false,
  patch_exists: true,
  patch_successfully_applied: true,
  resolved: false,
  resolution: 'NO',
  tests_status: {
    FAIL_TO_PASS: { success: [], failure: [] },
    PASS_TO_PASS: { success: [], failure: [] },
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  },
  apply_method: 'git apply --verbose',
  test_exit_code: 0,
  test_timed_out: false,
  error: null,
  ...fields,
});

function trajectory(taskId: string, attempt: number, details: Record<string, unknown> | null): Trajectory {
  return {
    taskId,
    attempt,
    evaluation: details === null ? null : { reward: 0, success: false, checks: [], details },
  } as unknown as Trajectory;
}

describe('swebenchRunReport', () => {
  it('sorts attempts into completed, resolved, partial, empty-patch and error, with instance ids for k = 1', () => {
    const result = swebenchRunReport([
      trajectory('a', 0, { submitted: true, report: report({ resolved: true, resolution: 'FULL' }) }),
      trajectory('b', 0, { submitted: true, report: report({ resolution: 'PARTIAL' }) }),
      trajectory('c', 0, { submitted: false, report: report({ patch_exists: false }) }),
      trajectory('d', 0, {
        submitted: true,
        report: report({ patch_successfully_applied: false, error: 'patch apply failed' }),
      }),
      trajectory('e', 0, null),
    ]);
    expect(result).toMatchObject({
      total_instances: 5,
      submitted_instances: 3,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 2,
      resolved_ids: ['a'],
      partial_ids: ['b'],
      empty_patch_ids: ['c'],
      error_ids: ['d', 'e'],
      incomplete_ids: ['c', 'd', 'e'],
    });
    expect(swebenchReportLines({ swebench: result })).toEqual([
      'SWE-bench: 1 of 5 predictions resolved | 2 completed, 3 submitted, 1 empty patches, 2 errors (summary.json: swebench)',
    ]);
    // A summary without the report (or with a malformed one) prints nothing of it.
    expect(swebenchReportLines({})).toEqual([]);
    expect(swebenchReportLines({ swebench: { resolved_instances: 'all' } })).toEqual([]);
  });

  it('names attempts when there are several per instance', () => {
    const result = swebenchRunReport([
      trajectory('a', 1, { submitted: true, report: report({ resolved: true, resolution: 'FULL' }) }),
      trajectory('a', 0, { submitted: true, report: report({}) }),
    ]);
    expect(result.completed_ids).toEqual(['a#0', 'a#1']);
    expect(result.resolved_ids).toEqual(['a#1']);
  });
});
