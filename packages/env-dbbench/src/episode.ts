import type { Action, Check, Episode, Evaluation, StepResult, ToolSpec } from '@harness-s/core';
import { type FinalAnswer, scoreAnswerNormalized, scoreAnswerV02, scoreWrite } from './answer-scoring.js';
import type { DbbenchSession, SqlOutcome } from './backend.js';
import { formatPythonRows } from './python-text.js';
import type { DbbenchTask } from './records.js';
import { tableHash } from './table-hash.js';

/** How question answers are scored: AgentBench v0.2 (the paper's), or the newer normalised rules. */
export type DbbenchScoring = 'v0.2' | 'normalized';

/** The tools of AgentBench's function-calling DBBench. */
export const dbbenchTools: readonly ToolSpec[] = [
  {
    name: 'execute_sql',
    description: 'Execute one SQL statement on the database and return its result rows, or the error.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'One SQL statement, on one line.' } },
      required: ['query'],
    },
  },
  {
    name: 'commit_final_answer',
    description: 'Commit the final answer and end the task. For a modification task, commit after the change.',
    parameters: {
      type: 'object',
      properties: {
        answers: { type: 'array', items: { type: 'string' }, description: 'The answers, one value per item.' },
      },
      required: ['answers'],
    },
  },
];

/** Observations longer than this are cut here already; the harness cuts much shorter. */
const maxObservationChars = 100_000;

/** A result as AgentBench shows it: the Python text of the fetched rows, or the error text. */
export function observationText(outcome: SqlOutcome): string {
  if (!outcome.ok) return outcome.message;
  const text = formatPythonRows(outcome.rows);
  const cut = outcome.truncated;
  const note = cut
    ? ` (only the first ${cut.keptRows} rows were fetched: the result is over the ${cut.limit === 'rows' ? 'row' : 'size'} limit)`
    : '';
  return text.length > maxObservationChars ? `${text.slice(0, maxObservationChars)}...${note}` : text + note;
}

/** The committed answer as a `FinalAnswer`, or an error text for the agent. */
function readAnswer(action: Action): FinalAnswer | string {
  const text = action.arguments['answer_text'];
  if (typeof text === 'string') return { kind: 'text', text };
  const answers = action.arguments['answers'];
  if (!Array.isArray(answers)) return "commit_final_answer needs 'answers': a list of values";
  const scalar = (value: unknown): value is string | number | boolean | null =>
    value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (!answers.every(scalar))
    return "commit_final_answer: every item of 'answers' must be a string, number, boolean or null";
  return { kind: 'list', values: answers };
}

/** One attempt at one DBBench task, on its own copy of the table. */
export class DbbenchEpisode implements Episode<DbbenchTask> {
  readonly tools = dbbenchTools;
  private answer: FinalAnswer | null = null;
  private finished = false;
  private sqlRounds = 0;

  constructor(
    readonly task: DbbenchTask,
    private readonly session: DbbenchSession,
    private readonly scoring: DbbenchScoring,
  ) {}

  async step(action: Action): Promise<StepResult> {
    if (this.finished) {
      return {
        observation: 'The answer was already committed.',
        done: true,
        error: { kind: 'episode-done', message: 'episode already done' },
      };
    }
    if (action.tool === 'execute_sql') {
      const query = action.arguments['query'];
      if (typeof query !== 'string' || query.trim() === '') {
        const message = "execute_sql needs 'query': one SQL statement as a string";
        return { observation: message, done: false, error: { kind: 'bad-arguments', message } };
      }
      this.sqlRounds += 1;
      const outcome = await this.session.execute(query);
      return {
        observation: observationText(outcome),
        done: false,
        ...(outcome.ok ? {} : { error: { kind: 'sql-error', message: outcome.message } }),
      };
    }
    if (action.tool === 'commit_final_answer') {
      const answer = readAnswer(action);
      if (typeof answer === 'string')
        return { observation: answer, done: false, error: { kind: 'bad-arguments', message: answer } };
      this.answer = answer;
      this.finished = true;
      return { observation: 'Your answer has been committed.', done: true };
    }
    const message = `unknown tool '${action.tool}'; available: ${dbbenchTools.map((tool) => tool.name).join(', ')}`;
    return { observation: message, done: false, error: { kind: 'unknown-tool', message } };
  }

  async evaluate(): Promise<Evaluation> {
    const checks: Check[] = [];
    const details: Record<string, unknown> = { type: this.task.type, sqlRounds: this.sqlRounds, answer: this.answer };
    if (this.task.kind === 'write') {
      // As AgentBench: the table is hashed whether or not an answer was committed.
      const table = await this.session.readTable();
      if ('error' in table) {
        checks.push({ name: 'table-hash', passed: false, detail: `the table cannot be read: ${table.error}` });
      } else {
        const hash = tableHash(table.rows);
        const verdict = scoreWrite(hash, this.task.answerMd5 ?? '');
        details['hash'] = hash;
        checks.push({ name: 'table-hash', passed: verdict.correct, detail: verdict.detail });
      }
    } else if (this.answer === null) {
      checks.push({ name: 'answer', passed: false, detail: 'no final answer was committed' });
    } else {
      const verdict =
        this.scoring === 'v0.2'
          ? scoreAnswerV02(this.answer, this.task.label)
          : scoreAnswerNormalized(this.answer, this.task.label);
      checks.push({ name: 'answer', passed: verdict.correct, detail: verdict.detail });
    }
    const success = checks.every((check) => check.passed);
    return { reward: success ? 1 : 0, success, checks, details };
  }

  async close(): Promise<void> {
    this.finished = true;
    await this.session.close();
  }
}
