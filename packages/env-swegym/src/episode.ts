import type { Action, Check, Episode, Evaluation, ExecResult, StepResult, ToolSpec } from '@harness-s/core';
import { type ExtractedPatch, extractPatch } from './git.js';
import { type Grade, GradeCache, gradePatch } from './grading.js';
import type { SweTask } from './instance.js';
import { isSandboxUnusable, type SweSandbox } from './swe-sandbox.js';

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
  /** A fresh sandbox at the base commit, for when the agent broke its own beyond reset. */
  replace: (broken: SweSandbox) => Promise<SweSandbox>;
  /** Grades of patches seen before on this instance, reused instead of running the tests again. */
  grades?: GradeCache;
}

/** The observation of one command, in mini-swe-agent's format, with `warnings` of the environment's own. */
export function commandObservation(result: ExecResult, timeoutMs: number, warnings: readonly string[] = []): string {
  const parts = [`<returncode>${result.exitCode ?? 'none'}</returncode>`];
  for (const warning of warnings) parts.push(`<warning>${warning}</warning>`);
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

/**
 * What the agent is told when its sandbox stopped working and was replaced. `reason` says why
 * ("its process table is full (...)").
 */
export function sandboxReplacedWarning(reason: string): string {
  return `The sandbox stopped working: ${reason}. It was replaced by a fresh one with the repository at its starting commit: the changes made so far are gone, and nothing left running survives.`;
}

/** Exit codes after which a command may not have started at all: `timeout` (125) or bash (126) could not run it. */
const unstartedExitCodes = new Set([125, 126]);

/** Whether a command's result suggests that its sandbox cannot start processes any more. */
function mayBeUnusable(result: ExecResult): boolean {
  // A fork that failed for want of a process slot says "Resource temporarily unavailable" (EAGAIN).
  return (
    (result.exitCode !== null && unstartedExitCodes.has(result.exitCode)) ||
    /Resource temporarily unavailable/.test(`${result.stderr}\n${result.stdout}`)
  );
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
      let result: ExecResult;
      try {
        result = await this.sandbox.exec(script, {
          timeoutMs: this.options.commandTimeoutMs,
          maxOutputChars: this.options.maxOutputChars,
        });
      } catch (error) {
        if (!isSandboxUnusable(error)) throw error;
        return this.replaceSandbox(error.reason, null);
      }
      const unusable = mayBeUnusable(result) ? await this.sandbox.whyUnusable() : null;
      if (unusable) return this.replaceSandbox(unusable, result);
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
      const extracted = await this.readChanges();
      if ('unusable' in extracted) return this.replaceSandbox(extracted.unusable, null);
      this.submitted = extracted;
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

  /**
   * The changes so far as a patch, or why they cannot be read when the sandbox stopped working (a
   * full process table leaves git unable to start).
   */
  private async readChanges(): Promise<ExtractedPatch | { unusable: string }> {
    try {
      const extracted = await extractPatch(this.sandbox.git(), this.task.instance.baseCommit);
      const unusable = extracted.error ? await this.sandbox.whyUnusable() : null;
      return unusable ? { unusable } : extracted;
    } catch (error) {
      if (!isSandboxUnusable(error)) throw error;
      return { unusable: error.reason };
    }
  }

  /**
   * Replaces a sandbox that stopped working with a fresh one at the base commit (the same one
   * reset, when its reset brings back everything) and tells the agent, with the output of the
   * command that found it (`result`) if there was one. The episode goes on.
   */
  private async replaceSandbox(reason: string, result: ExecResult | null): Promise<StepResult> {
    await this.renewSandbox();
    const warning = sandboxReplacedWarning(reason);
    const observation = result
      ? commandObservation(result, this.options.commandTimeoutMs, [warning])
      : `<returncode>none</returncode>\n<warning>${warning}</warning>\n<output>\n</output>`;
    return { observation, done: false, error: { kind: 'sandbox-replaced', message: reason } };
  }

  /** The sandbox back at the base commit: reset in place, or a new one when that is refused or fails. */
  private async renewSandbox(): Promise<void> {
    try {
      await this.sandbox.reset();
    } catch {
      // A sandbox that cannot be reset in place (an image's repository, a broken one): a new one.
      this.sandbox = await this.options.replace(this.sandbox);
    }
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
    let extracted = this.submitted;
    if (!extracted) {
      const read = await this.readChanges();
      extracted =
        'unusable' in read
          ? { patch: '', skippedBinaryFiles: [], error: `the sandbox stopped working: ${read.unusable}` }
          : read;
    }
    this.finished = true;
    const patch = extracted.error ? null : extracted.patch;
    const { grades } = this.options;
    const key = grades ? GradeCache.key(this.task, patch) : '';
    const known = grades?.get(key);
    if (known) return this.toEvaluation(known, extracted, submitted);
    // The patch is graded from the base commit as the workspace's source has it, whatever the
    // agent's commands did to the sandbox; one that cannot be brought back gives way to a new one.
    await this.renewSandbox();
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
