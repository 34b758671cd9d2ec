import { createHash, randomBytes } from 'node:crypto';
import { InfrastructureError } from '@harness-s/core';
import { z } from 'zod';
import { testArgumentsFor } from './conventions.js';
import { type ApplyMethod, applyPatchFile } from './git.js';
import type { SweInstance, SweTask } from './instance.js';
import { parseTestLog, type TestStatusMap } from './log-parsers.js';
import { cutHeadAndTail } from './output-buffer.js';
import { shellJoin, shellQuote } from './shell.js';
import type { SweSandbox } from './swe-sandbox.js';

/** SWE-bench's resolution: only FULL counts as resolved. */
export const Resolution = z.enum(['FULL', 'PARTIAL', 'NO']);
export type Resolution = z.infer<typeof Resolution>;

const Outcome = z.object({ success: z.array(z.string()), failure: z.array(z.string()) });

/** Which expected tests passed and which failed, per SWE-bench category. */
export const TestsStatus = z.object({
  FAIL_TO_PASS: Outcome,
  PASS_TO_PASS: Outcome,
  FAIL_TO_FAIL: Outcome,
  PASS_TO_FAIL: Outcome,
});
export type TestsStatus = z.infer<typeof TestsStatus>;

/** The per-instance report, with SWE-bench's keys plus what this grader adds. */
export const InstanceReport = z.object({
  patch_is_None: z.boolean(),
  patch_exists: z.boolean(),
  patch_successfully_applied: z.boolean(),
  resolved: z.boolean(),
  resolution: Resolution,
  tests_status: TestsStatus,
  /** The rung of the apply ladder that worked, or null. */
  apply_method: z.string().nullable(),
  /** Exit code of the test command (null when it did not finish). */
  test_exit_code: z.number().int().nullable(),
  test_timed_out: z.boolean(),
  /** Why grading could not judge the tests (patch did not apply, tests timed out...), if so. */
  error: z.string().nullable(),
});
export type InstanceReport = z.infer<typeof InstanceReport>;

/** The grading of one patch: the report and the evidence behind it. */
export interface Grade {
  report: InstanceReport;
  /** The test log between the markers (cut to head and tail when huge). */
  testLog: string;
  /** What the patch application printed. */
  applyLog: string;
}

/** How much of the test log is kept in memory for parsing. */
const maxLogChars = 4_000_000;
/** How much of the test log goes into an evaluation's details. */
const keptLogChars = 8_000;

/**
 * Sorts expected tests into success and failure, as SWE-bench does: passed is PASSED or XFAIL;
 * failed is FAILED, ERROR or missing from the log. One deliberate difference: a SKIPPED expected
 * test counts as a failure (SWE-bench leaves it out, which lets skipping pass as fixing).
 */
export function classifyTests(instance: SweInstance, statuses: TestStatusMap, trustLog: boolean): TestsStatus {
  const passed = (name: string) => {
    const status = statuses.get(name);
    return trustLog && (status === 'PASSED' || status === 'XFAIL');
  };
  const split = (names: readonly string[]) => ({
    success: names.filter(passed),
    failure: names.filter((name) => !passed(name)),
  });
  return {
    FAIL_TO_PASS: split(instance.failToPass),
    PASS_TO_PASS: split(instance.passToPass),
    FAIL_TO_FAIL: split(instance.failToFail),
    PASS_TO_FAIL: split(instance.passToFail),
  };
}

/** FULL: every FAIL_TO_PASS and PASS_TO_PASS passes; PARTIAL: some FAIL_TO_PASS and every PASS_TO_PASS; else NO. */
export function resolutionOf(status: TestsStatus): Resolution {
  const ratio = (outcome: { success: string[]; failure: string[] }) => {
    const total = outcome.success.length + outcome.failure.length;
    return total === 0 ? 1 : outcome.success.length / total;
  };
  const failToPass = ratio(status.FAIL_TO_PASS);
  const passToPass = ratio(status.PASS_TO_PASS);
  if (failToPass === 1 && passToPass === 1) return 'FULL';
  if (failToPass > 0 && failToPass < 1 && passToPass === 1) return 'PARTIAL';
  return 'NO';
}

/** Markers around the test output; the nonce keeps a patch from printing them itself. */
export function testMarkers(nonce: string) {
  return {
    start: `>>>>> Start Test Output ${nonce}`,
    end: `>>>>> End Test Output ${nonce}`,
    exit: `>>>>> Test Exit Code ${nonce}`,
  };
}

/** The evaluation script: restore the test files, apply the test patch, run the tests between markers. */
export function evalScript(task: SweTask, testPatchPath: string, nonce: string): string {
  const { runtime, instance } = task;
  const markers = testMarkers(nonce);
  const base = shellQuote(instance.baseCommit);
  const restore = runtime.testFiles.map((file) => {
    const quoted = shellQuote(file);
    return `if git cat-file -e ${base}:${quoted} 2>/dev/null; then git checkout -q ${base} -- ${quoted}; else rm -f -- ${quoted}; fi`;
  });
  const command = [runtime.testCommand, shellJoin(testArgumentsFor(runtime.testFiles, runtime.testArguments))]
    .filter((part) => part !== '')
    .join(' ');
  return [
    'exec 2>&1',
    `cd ${shellQuote(runtime.repoPath)}`,
    runtime.setup ?? '',
    ...restore,
    `git apply --verbose ${shellQuote(testPatchPath)} || { echo 'the test patch does not apply'; exit 97; }`,
    `echo ${shellQuote(markers.start)}`,
    command,
    `echo "${markers.exit} $?"`,
    `echo ${shellQuote(markers.end)}`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The test log between the markers, and the test command's exit code (null if it never finished). */
export function readTestOutput(output: string, nonce: string): { log: string; exitCode: number | null } {
  const markers = testMarkers(nonce);
  const start = output.indexOf(markers.start);
  if (start < 0) return { log: '', exitCode: null };
  const from = start + markers.start.length;
  const end = output.indexOf(markers.end, from);
  const body = end < 0 ? output.slice(from) : output.slice(from, end);
  const exit = new RegExp(`${markers.exit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\d+)`).exec(body);
  const log = exit ? body.slice(0, exit.index) : body;
  return { log: log.replace(/^\n/, ''), exitCode: exit?.[1] === undefined ? null : Number(exit[1]) };
}

/**
 * Grades a patch in a sandbox at the instance's base commit, as SWE-bench does: apply the patch
 * with the ladder, apply the test patch over restored test files, run the tests between markers,
 * parse the log, and count the exit code: a run that exits non-zero while its log shows no failing
 * test is not trusted, so printed "PASSED" lines cannot resolve an instance.
 */
export async function gradePatch(sandbox: SweSandbox, task: SweTask, patch: string | null): Promise<Grade> {
  const nonce = randomBytes(8).toString('hex');
  const patchExists = patch !== null && patch.trim() !== '';
  let applyMethod: ApplyMethod | null = null;
  let applyLog = '';
  const empty = classifyTests(task.instance, new Map(), false);
  const report = (fields: Partial<InstanceReport>): InstanceReport => ({
    patch_is_None: patch === null,
    patch_exists: patchExists,
    patch_successfully_applied: false,
    resolved: false,
    resolution: 'NO',
    tests_status: empty,
    apply_method: applyMethod,
    test_exit_code: null,
    test_timed_out: false,
    error: null,
    ...fields,
  });

  if (patchExists) {
    const patchPath = `${sandbox.scratchPath}/model-${nonce}.patch`;
    await sandbox.writeFile(patchPath, patch.endsWith('\n') ? patch : `${patch}\n`);
    const applied = await applyPatchFile(
      sandbox.git(),
      (command, options) => sandbox.exec(command, options),
      sandbox.repoPath,
      patchPath,
    );
    applyMethod = applied.method;
    applyLog = applied.log;
    if (!applied.applied) {
      return { report: report({ error: 'patch apply failed' }), testLog: '', applyLog };
    }
  }

  const testPatchPath = `${sandbox.scratchPath}/test-${nonce}.patch`;
  await sandbox.writeFile(testPatchPath, task.instance.testPatch);
  const run = await sandbox.exec(evalScript(task, testPatchPath, nonce), {
    timeoutMs: task.runtime.testTimeoutMs,
    maxOutputChars: maxLogChars,
  });
  if (run.exitCode === 97) {
    throw new InfrastructureError(`${task.id}: the instance's test patch does not apply: ${run.stdout.slice(-2000)}`, {
      code: 'test-patch-failed',
      retryable: false,
    });
  }
  const { log, exitCode } = readTestOutput(run.stdout, nonce);
  const statuses = parseTestLog(task.runtime.logParser, log);
  const anyFailure = [...statuses.values()].some((status) => status === 'FAILED' || status === 'ERROR');
  const consistent = exitCode === 0 || (exitCode !== null && anyFailure);
  const testsStatus = classifyTests(task.instance, statuses, consistent);
  const resolution = resolutionOf(testsStatus);
  let error: string | null = null;
  if (run.timedOut || exitCode === null) error = `the tests did not finish (timeout ${task.runtime.testTimeoutMs} ms)`;
  else if (!consistent)
    error = `the test command exited ${exitCode} but its log shows no failing test; the log is not trusted`;
  return {
    report: report({
      patch_successfully_applied: patchExists,
      resolved: resolution === 'FULL',
      resolution,
      tests_status: testsStatus,
      apply_method: applyMethod,
      test_exit_code: exitCode,
      test_timed_out: run.timedOut,
      error,
    }),
    testLog: cutHeadAndTail(log, keptLogChars).text,
    applyLog,
  };
}

/**
 * Grades already computed, by instance and patch. Grading a patch runs the instance's tests in a
 * reset sandbox, so the same patch on the same instance (same base commit, test patch and test
 * command) gets the same grade while the tests are deterministic; training repeats patches often
 * (a policy that has learned a fix submits it again and again). A grade whose tests timed out is
 * not kept. Oldest entries go first beyond `maxEntries`.
 */
export class GradeCache {
  private readonly grades = new Map<string, Grade>();
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries = 4096) {}

  static key(task: SweTask, patch: string | null): string {
    const hash = createHash('sha256');
    for (const part of [task.id, task.instance.baseCommit, task.instance.testPatch, JSON.stringify(task.runtime)]) {
      hash.update(part).update('\0');
    }
    hash.update(patch === null ? '\u0001none' : patch);
    return hash.digest('hex');
  }

  get(key: string): Grade | undefined {
    const grade = this.grades.get(key);
    if (grade) this.hits += 1;
    else this.misses += 1;
    return grade;
  }

  set(key: string, grade: Grade): void {
    if (grade.report.test_timed_out) return;
    this.grades.set(key, grade);
    if (this.grades.size > this.maxEntries) this.grades.delete(this.grades.keys().next().value as string);
  }

  get size(): number {
    return this.grades.size;
  }
}
