import type { Task } from '@harness-s/core';
import { z } from 'zod';

/** SWE-Gym stores test lists as JSON lists, SWE-bench as JSON strings of lists: both are read. */
export const TestList = z.union([
  z.array(z.string()),
  z.string().transform((text, context): string[] => {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed;
    } catch {
      // reported below
    }
    context.addIssue({ code: 'custom', message: 'expected a list of test names or a JSON string of one' });
    return z.NEVER;
  }),
]);

/** The log parsers the grader knows. */
export const LogParserName = z.enum(['pytest', 'unittest', 'node-tap', 'node-spec', 'jest', 'vitest']);
export type LogParserName = z.infer<typeof LogParserName>;

/** How the test files of a test patch become arguments of the test command. */
export const TestArguments = z.enum(['paths', 'python-modules', 'none']);
export type TestArguments = z.infer<typeof TestArguments>;

/** One find-and-replace edit of a file: exactly one occurrence of `find` becomes `replace`. */
export const Edit = z.strictObject({ file: z.string().min(1), find: z.string().min(1), replace: z.string() });
export type Edit = z.infer<typeof Edit>;

/**
 * What the oracle plan of an embedded instance is made of. Every part is a real command or edit:
 * the wrong branches of the plan run and fail grading for real.
 */
export const EmbeddedOracle = z.strictObject({
  /** A look at the code an agent would start with. */
  explore: z.string().min(1),
  /** A command that shows the bug (run after `debug.edit`). */
  reproduce: z.string().min(1),
  /**
   * What reproducing leaves behind unless the agent checks its diff: a debug print in the source
   * (`print`) or an edited fixture (`fixture`). Either breaks a PASS_TO_PASS test if submitted.
   */
  debug: z.strictObject({ kind: z.enum(['print', 'fixture']), edit: Edit }),
  /** The gold fix, one edit per call site; a partial fix applies only the first. */
  fix: z.array(Edit).min(1),
  /** A plausible fix of the wrong place: FAIL_TO_PASS tests keep failing. */
  wrongFix: z.array(Edit).min(1),
  /** How an agent runs the repository's tests. */
  testCommand: z.string().min(1),
});
export type EmbeddedOracle = z.infer<typeof EmbeddedOracle>;

/** The part of an embedded instance record that only this project reads. */
export const EmbeddedExtension = z.strictObject({
  split: z.enum(['train', 'dev', 'test']),
  language: z.enum(['javascript', 'python']),
  /** The repository's files at the base commit, relative to the data directory. */
  repo_dir: z.string().min(1),
  oracle: EmbeddedOracle,
});
export type EmbeddedExtension = z.infer<typeof EmbeddedExtension>;

/**
 * A SWE-bench / SWE-Gym instance, read leniently: the fields of the format (extra ones ignored),
 * plus optional per-instance overrides of how it runs.
 */
export const SweInstanceRecord = z.object({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'a git commit hash'),
  patch: z.string().nullish(),
  test_patch: z.string().min(1),
  problem_statement: z.string().min(1),
  hints_text: z.string().nullish(),
  created_at: z.string().nullish(),
  version: z.union([z.string(), z.number()]).nullish(),
  FAIL_TO_PASS: TestList,
  PASS_TO_PASS: TestList.nullish(),
  FAIL_TO_FAIL: TestList.nullish(),
  PASS_TO_FAIL: TestList.nullish(),
  environment_setup_commit: z.string().nullish(),
  /** Overrides of the SWE-Gym conventions for this instance. */
  image_name: z.string().nullish(),
  repo_path: z.string().nullish(),
  test_cmd: z.string().nullish(),
  log_parser: LogParserName.nullish(),
  test_arguments: TestArguments.nullish(),
  test_timeout_seconds: z.number().positive().nullish(),
  setup_script: z.string().nullish(),
  harness_s: EmbeddedExtension.nullish(),
});
export type SweInstanceRecord = z.infer<typeof SweInstanceRecord>;

/** The instance fields grading needs, with test lists as lists. */
export interface SweInstance {
  instanceId: string;
  repo: string;
  baseCommit: string;
  goldPatch: string | null;
  testPatch: string;
  problemStatement: string;
  hintsText: string;
  createdAt: string | null;
  version: string | null;
  failToPass: string[];
  passToPass: string[];
  failToFail: string[];
  passToFail: string[];
}

/** How an instance runs: where, with which test command and log parser. */
export interface Runtime {
  /** The Docker image (one per instance for SWE-Gym). */
  image: string;
  /** The repository inside the image (and the sandbox). */
  repoPath: string;
  /** Shell lines run before every command and the tests (e.g. activating a conda env), or null. */
  setup: string | null;
  /** The test command; the test files are appended as `testArguments` says. */
  testCommand: string;
  testArguments: TestArguments;
  /** The test files: those the test patch touches. */
  testFiles: string[];
  logParser: LogParserName;
  testTimeoutMs: number;
  /** A git repository on this machine to copy in, when the image does not hold the repository. */
  hostRepo: string | null;
}

/** A loaded SWE-Gym task. */
export interface SweTask extends Task {
  env: 'swegym';
  instance: SweInstance;
  runtime: Runtime;
  /** Present for the embedded instances: what their oracle plans are made of. */
  embedded: EmbeddedExtension | null;
}
