import type { HarnessSpec } from '@harness-s/core';

/**
 * Harness families for DBBench that do not descend from H0, for cross-harness evaluation: a trained
 * policy is run under them without further training. They speak the same environment actions but
 * through other prompts, codecs, context and execution rules.
 */

const minimalSystem = `Answer questions about a database table, or change it, with SQL.
Reply with one \`\`\`sql block to run one statement, or with a line ANSWER: ["value", ...] to finish (ANSWER: [] after a change).`;

const codeActSystem = `You are an agent that solves database tasks by calling tools.
Use think to plan and to reason about results, execute_sql to run one SQL statement, and finish to give the final answer as a list of values (an empty list after you changed the table).
Work step by step: look, act, check, then finish.`;

/** `minimal`: a terse SQL-only loop with a text codec and long observations. */
export function dbbenchMinimal(): HarnessSpec {
  return {
    schemaVersion: 1,
    id: 'minimal',
    family: 'minimal',
    env: 'dbbench',
    parent: null,
    direction: null,
    description: 'Minimal SQL-only loop: a three-line prompt, ```sql blocks and an ANSWER line.',
    prompt: { system: minimalSystem, task: '{{instruction}}', directives: [] },
    codec: { kind: 'sql-only' },
    tools: [],
    context: { maxObservationChars: 2000, truncationMarker: '...', keepLastObservations: null },
    execution: { maxSteps: 15, maxFormatErrors: 3 },
  };
}

/** `codeact`: code-act style tool calls with `think` and `finish`, keeping the last six observations. */
export function dbbenchCodeAct(): HarnessSpec {
  return {
    schemaVersion: 1,
    id: 'codeact',
    family: 'codeact',
    env: 'dbbench',
    parent: null,
    direction: null,
    description: 'Code-act style: think, execute_sql and finish tools; older observations elided to a summary.',
    prompt: { system: codeActSystem, task: 'Task: {{instruction}}', directives: [] },
    codec: { kind: 'codeact', options: { finishTool: 'commit_final_answer' } },
    tools: [],
    context: {
      maxObservationChars: 1500,
      truncationMarker: ' [output cut]',
      keepLastObservations: 6,
      elidedSummaryChars: 80,
    },
    execution: { maxSteps: 20, maxFormatErrors: 3 },
  };
}
