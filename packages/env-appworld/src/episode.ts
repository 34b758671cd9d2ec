import type { Action, Episode, Evaluation, StepResult, ToolSpec } from '@harness-s/core';
import type { Database } from 'better-sqlite3';
import { changedTables } from './evaluation/change-log.js';
import { evaluateState } from './evaluation/check-context.js';
import type { CodeSandbox } from './sandbox/code-sandbox.js';
import { executeTool } from './tasks/plan-steps.js';
import type { AppWorldTask, EmbeddedTask } from './tasks/types.js';
import type { InitialState } from './world/embedded-world.js';
import type { WorldSession } from './world/session.js';

/** The one tool of an episode of the embedded world: run a JavaScript code block in the stateful sandbox. */
export const appworldTools: readonly ToolSpec[] = [
  {
    name: executeTool,
    description:
      'Run JavaScript code in a stateful sandbox where apis.<app>.<api>({...}) calls the apps and print(...) shows output. Variables persist across calls. apis.supervisor.complete_task({...}) ends the task.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The JavaScript code to run.' } },
      required: ['code'],
    },
  },
];

/** The same tool on AppWorld's own server, whose tasks are written in Python. */
const pythonTools: readonly ToolSpec[] = [
  {
    name: executeTool,
    description:
      'Run Python code in a stateful REPL where apis.<app>.<api>(...) calls the apps and print(...) shows output. Variables persist across calls. apis.supervisor.complete_task(...) ends the task.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.' } },
      required: ['code'],
    },
  },
];

/** The one tool of an AppWorld episode, for tasks written in `language`: run code in the stateful sandbox. */
export function appworldToolsFor(language: AppWorldTask['codeLanguage']): readonly ToolSpec[] {
  return language === 'python' ? pythonTools : appworldTools;
}

/** The last line of an execution failure: what went wrong, for failure analysis. */
const lastLine = (text: string): string => text.trimEnd().split('\n').pop() ?? text;

/** One attempt at one task of the embedded world, on a private copy of its initial state. */
export class AppWorldEpisode implements Episode<AppWorldTask> {
  readonly tools = appworldTools;
  private closed = false;

  constructor(
    private readonly embedded: EmbeddedTask,
    private readonly initial: InitialState,
    private readonly db: Database,
    private readonly session: WorldSession,
    private readonly sandbox: CodeSandbox,
    private readonly openBefore: () => Database,
  ) {}

  get task(): AppWorldTask {
    return this.embedded.task;
  }

  /** Whether `supervisor.complete_task` has ended the task. */
  get completed(): boolean {
    return this.session.completion !== null;
  }

  /** API calls made so far. */
  get apiCalls(): number {
    return this.session.apiCalls;
  }

  async step(action: Action): Promise<StepResult> {
    if (this.session.completion) {
      const message = 'The task is already completed.';
      return { observation: message, done: true, error: { kind: 'episode-done', message } };
    }
    if (action.tool !== executeTool) {
      const message = `unknown tool '${action.tool}'; the only tool is ${executeTool}(code)`;
      return { observation: message, done: false, error: { kind: 'unknown-tool', message } };
    }
    const code = action.arguments['code'];
    if (typeof code !== 'string' || code.trim() === '') {
      const message = "execute needs 'code': the JavaScript code to run, as a string";
      return { observation: message, done: false, error: { kind: 'bad-arguments', message } };
    }
    const outcome = await this.sandbox.run(code);
    return {
      observation: outcome.output,
      done: this.session.completion !== null,
      ...(outcome.ok ? {} : { error: { kind: outcome.failure ?? 'exception', message: lastLine(outcome.output) } }),
    };
  }

  async evaluate(): Promise<Evaluation> {
    const before = this.openBefore();
    try {
      const evaluation = evaluateState({
        before,
        beforeSnapshot: this.initial.snapshot,
        after: this.db,
        supervisorId: this.embedded.spec.supervisorId,
        completion: this.session.completion,
        check: this.embedded.spec.check,
        written: changedTables(this.db),
      });
      return { ...evaluation, details: { ...evaluation.details, apiCalls: this.session.apiCalls } };
    } finally {
      before.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sandbox.dispose();
    this.db.close();
  }
}
