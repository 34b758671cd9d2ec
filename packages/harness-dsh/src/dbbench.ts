import type { HarnessSpec } from '@harness-s/core';

const toolCallsSystem = `I will ask you a question, then you should help me operate a SQL database with SQL to answer the question.
You have to explain the problem and your solution to me and write down your thoughts.
After thinking and explaining thoroughly, every round you can choose to operate or to answer with the two tools provided.
If you want to execute SQL, call execute_sql with one SQL statement on one line. I will execute it and give you the output.
If you are done operating and want to commit your final answer, call commit_final_answer with the list of answers.
Do not commit an answer unless you are sure about it: it must be exactly the same as the correct answer.
If the question is about modifying the database, commit after the modification is done; the answers can then be anything.
The output you receive is the raw database response, in Python's text form; deal with it yourself.`;

const textSystem = `I will ask you a question, then you should help me operate a SQL database with SQL to answer the question.
You have to explain the problem and your solution to me and write down your thoughts.
After thinking and explaining thoroughly, every round you can choose to operate or to answer.
Your operation should be like this:
Action: Operation
\`\`\`sql
SELECT * FROM table WHERE condition;
\`\`\`
You MUST put SQL in markdown format without any other comments. Your SQL should be in one line.
Every time you can only execute one SQL statement. I will only execute the statement in the first SQL code block.
Every time you write a SQL, I will execute it for you and give you the output.
If you are done operating, and you want to commit your final answer, then write down:
Action: Answer
Final Answer: ["ANSWER1", "ANSWER2", ...]
DO NOT write this pattern unless you are sure about your answer. I expect an accurate and correct answer.
Your answer should be accurate. Your answer must be exactly the same as the correct answer.
If the question is about modifying the database, then after done operation, your answer field can be anything.
If your response cannot match any pattern I mentioned earlier, it is a format error.
Your input will be the raw database response; you have to deal with it by yourself.`;

/** The action codecs H0 for DBBench comes with. */
export type DbbenchCodec = 'tool-calls' | 'dbbench-text';

/**
 * H0 for DBBench: AgentBench's protocol. Observations are the raw result rows (or the error
 * text) cut at 800 characters plus "[TRUNCATED]", at most 15 rounds. `tool-calls` offers
 * `execute_sql(query)` and `commit_final_answer(answers)`; `dbbench-text` is the original text
 * format with "Action: Operation" / "Action: Answer".
 */
export function dbbenchH0(codec: DbbenchCodec = 'tool-calls'): HarnessSpec {
  return {
    schemaVersion: 1,
    id: codec === 'tool-calls' ? 'h0' : 'h0-text',
    family: 'dsh',
    env: 'dbbench',
    parent: null,
    direction: null,
    description:
      codec === 'tool-calls'
        ? 'Base harness for DBBench: AgentBench protocol with native tool calls.'
        : "Base harness for DBBench: AgentBench's original text protocol.",
    prompt: {
      system: codec === 'tool-calls' ? toolCallsSystem : textSystem,
      task: '{{instruction}}',
      directives: [],
    },
    codec: { kind: codec },
    tools: [],
    context: { maxObservationChars: 800, truncationMarker: '[TRUNCATED]', keepLastObservations: null },
    execution: { maxSteps: 15, maxFormatErrors: 3 },
  };
}
