import type { Action, Check, Episode, Evaluation, ExecResult, StepResult, ToolSpec } from '@harness-s/core';
import { type ExtractedPatch, extractPatch } from './git.js';
import { type Grade, GradeCache, gradePatch } from './grading.js';
import type { SweTask } from './instance.js';
import type { SweSandbox } from './swe-sandbox.js';

/** mini-swe-agent's shape: one `bash` tool and a `submit` action. */
export const sweTools: readonly ToolSpec[] = [
  {
    name: 'bash',
    description:
      'Run a command in a fresh bash shell at the root of the repository. Every call is a new shell: ' +
      'directory changes and variables do not carry over. The command is killed (with everything it ' +
      'started) at the time limit. Output over the size limit is cut to its head and tail.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The bash command (may span several lines).' } },
      required: ['command'],
    },
  },
  {
    name: 'submit',
    description:
      'Submit your work and end the task. The changes of the repository against its starting commit ' +
      '(including new files) are your patch.',
    parameters: { type: 'object', properties: {}, required: [] },
  },
];

export interface SweEpisodeOptions {
  /** Time limit of one `bash` command. */
  commandTimeoutMs: number;
  /** Output of one command beyond this is cut to head and tail (mini-swe-agent: 10,000). */
  maxOutputChars: number;
  /** Returns the sandbox to its pool (reset for reuse, or destroyed). */
  release: (sandbox: SweSandbox) => Promise<void>;
  /** A fresh sandbox at the base commit, for grading when the agent broke its own beyond reset. */
  replace: (broken: SweSandbox) => Promise<SweSandbox>;
  /** Grades of patches seen before on this instance, reused instead of running the tests again. */
  grades?: GradeCache;
}

/** The observation of one command, in mini-swe-agent's format. */
export function commandObservation(result: ExecResult, timeoutMs: number): string {
  const parts = [`<returncode>${result.exitCode ?? 'none'}</returncode>`];
  if (result.timedOut) {
    parts.push(
      `<warning>The command timed out after ${Math.round(timeoutMs / 1000)} s and was killed, with every process it started. Its output until then is below.</warning>`,
    );
  }
  if (result.truncatedChars > 0) {
    parts.push(
      `<warning>The output was too long: ${result.truncatedChars} characters in the middle were elided. Use commands that print less (grep, head, tail, sed -n).</warning>`,
    );
  }
  parts.push(`<output>\n${result.stdout}${result.stdout.endsWith('\n') || result.stdout === '' ? '' : '\n'}</output>`);
  return parts.join('\n');
}

/** One attempt at one SWE-Gym instance, in one sandbox. */
export class SweEpisode implements Episode<SweTask> {
  readonly tools = sweTools;
  private submitted: ExtractedPatch | null = null;
  private finished = false;
  private closed = false;
  private commands = 0;
  private evaluation: Promise<Evaluation> | null = null;

  constructor(
    readonly task: SweTask,
    private sandbox: SweSandbox,
    private readonly options: SweEpisodeOptions,
  ) {}

  async step(action: Action): Promise<StepResult> {
    if (this.finished) {
      const message = 'The patch was already submitted.';
      return { observation: message, done: true, error: { kind: 'episode-done', message } };
    }
    if (action.tool === 'bash') {
      const command = action.arguments['command'];
      if (typeof command !== 'string' || command.trim() === '') {
        const message = "bash needs 'command': the command to run, as a string";
        return { observation: message, done: false, error: { kind: 'bad-arguments', message } };
      }
      this.commands += 1;
      const { setup } = this.task.runtime;
      // stderr joins stdout, so the agent sees both in the order they were printed.
      const script = ['exec 2>&1', setup ?? '', command].filter((line) => line !== '').join('\n');
      const result = await this.sandbox.exec(script, {
        timeoutMs: this.options.commandTimeoutMs,
        maxOutputChars: this.options.maxOutputChars,
      });
      const observation = commandObservation(result, this.options.commandTimeoutMs);
      if (result.timedOut) {
        return {
          observation,
          done: false,
          error: { kind: 'timeout', message: `killed after ${this.options.commandTimeoutMs} ms` },
        };
      }
      if (result.exitCode !== 0) {
        return { observation, done: false, error: { kind: 'exit-code', message: `exit code ${result.exitCode}` } };
      }
      return { observation, done: false };
    }
    if (action.tool === 'submit') {
      this.submitted = await extractPatch(this.sandbox.git(), this.task.instance.baseCommit);
      this.finished = true;
      const lines = this.submitted.patch.split('\n').length - 1;
      const observation = this.submitted.error
        ? `Submitted, but the changes could not be read: ${this.submitted.error}`
        : this.submitted.patch === ''
          ? 'Submitted an empty patch: the repository has no changes.'
          : `Submitted a patch of ${lines} lines.`;
      return { observation, done: true };
    }
    const message = `unknown tool '${action.tool}'; available: ${sweTools.map((tool) => tool.name).join(', ')}`;
    return { observation: message, done: false, error: { kind: 'unknown-tool', message } };
  }

  evaluate(): Promise<Evaluation> {
    // After close the sandbox may already serve another episode: grading it would grade theirs.
    if (this.closed && !this.evaluation) return Promise.reject(new Error(`${this.task.id}: evaluate() after close()`));
    this.evaluation ??= this.grade();
    return this.evaluation;
  }

  private async grade(): Promise<Evaluation> {
    const submitted = this.submitted !== null;
    // Without a submit (step limit), the changes made so far are the patch, as harnesses autosubmit.
    const extracted = this.submitted ?? (await extractPatch(this.sandbox.git(), this.task.instance.baseCommit));
    this.finished = true;
    const patch = extracted.error ? null : extracted.patch;
    const { grades } = this.options;
    const key = grades ? GradeCache.key(this.task, patch) : '';
    const known = grades?.get(key);
    if (known) return this.toEvaluation(known, extracted, submitted);
    try {
      await this.sandbox.reset();
    } catch {
      // The agent broke the sandbox beyond a reset (deleted .git, filled the disk): grade in a new one.
      this.sandbox = await this.options.replace(this.sandbox);
    }
    const grade = await gradePatch(this.sandbox, this.task, patch);
    grades?.set(key, grade);
    return this.toEvaluation(grade, extracted, submitted);
  }

  private toEvaluation(grade: Grade, extracted: ExtractedPatch, submitted: boolean): Evaluation {
    const { report } = grade;
    const status = report.tests_status;
    const counted = (outcome: { success: string[]; failure: string[] }) =>
      `${outcome.success.length}/${outcome.success.length + outcome.failure.length} pass` +
      (outcome.failure.length ? `; failing: ${outcome.failure.slice(0, 5).join(', ')}` : '');
    const checks: Check[] = [
      {
        name: 'patch-applies',
        passed: report.patch_exists && report.patch_successfully_applied,
        detail: report.patch_exists ? (report.apply_method ?? 'patch apply failed') : 'empty patch',
      },
      {
        name: 'FAIL_TO_PASS',
        passed: status.FAIL_TO_PASS.failure.length === 0 && report.error === null,
        detail: counted(status.FAIL_TO_PASS),
      },
      {
        name: 'PASS_TO_PASS',
        passed: status.PASS_TO_PASS.failure.length === 0 && report.error === null,
        detail: counted(status.PASS_TO_PASS),
      },
      {
        name: 'test-run',
        passed: report.error === null,
        detail: report.error ?? `exit code ${report.test_exit_code}`,
      },
    ];
    return {
      reward: report.resolved ? 1 : 0,
      success: report.resolved,
      checks,
      details: {
        instance_id: this.task.instance.instanceId,
        resolution: report.resolution,
        report,
        submitted,
        patch: extracted.patch,
        skippedBinaryFiles: extracted.skippedBinaryFiles,
        ...(extracted.error ? { extractError: extracted.error } : {}),
        commands: this.commands,
        testLog: grade.testLog,
        applyLog: grade.applyLog,
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.finished = true;
    await this.options.release(this.sandbox);
  }
}
