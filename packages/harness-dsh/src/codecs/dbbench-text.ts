import type { Action, ActionCodec, AssistantMessage, DecodedTurn } from '@harness-s/core';

/**
 * AgentBench's original DBBench text protocol:
 *
 *     Action: Operation
 *     ```sql
 *     SELECT * FROM table WHERE condition;
 *     ```
 *
 * or
 *
 *     Action: Answer
 *     Final Answer: ["ANSWER1", "ANSWER2", ...]
 *
 * The SQL must be one line (newlines are joined with spaces, as AgentBench does). The final answer
 * is passed on as raw text (`answer_text`) so the environment scores it exactly as AgentBench
 * v0.2 does, with Python's literal semantics.
 */
export const dbbenchTextCodec: ActionCodec = {
  kind: 'dbbench-text',
  oneActionPerTurn: true,

  apiTools(): [] {
    return [];
  },

  decode(message: AssistantMessage): DecodedTurn {
    const content = message.content;
    const action = /Action:\s*(Operation|Answer)\b/.exec(content)?.[1];
    if (action === 'Operation') {
      const block = /```sql\s*\n([\s\S]*?)\n?```/.exec(content);
      if (!block?.[1]?.trim()) {
        return { ok: false, error: 'Action: Operation must be followed by one ```sql block with one SQL statement.' };
      }
      const query = block[1].trim().replace(/\s*\n\s*/g, ' ');
      return { ok: true, actions: [{ action: { tool: 'execute_sql', arguments: { query } } }] };
    }
    if (action === 'Answer') {
      // As AgentBench: the rest of a line that starts with "Final Answer:", kept raw for scoring.
      const answer = /\nFinal Answer:([^\n]*)/.exec(content);
      if (!answer) return { ok: false, error: 'Action: Answer must be followed by a line "Final Answer: [...]".' };
      return {
        ok: true,
        actions: [{ action: { tool: 'commit_final_answer', arguments: { answer_text: answer[1] ?? '' } } }],
      };
    }
    return {
      ok: false,
      error:
        'No valid action found. End your message with "Action: Operation" and a ```sql block, or "Action: Answer" and "Final Answer: [...]".',
    };
  },

  encode(actions: readonly Action[], thought = ''): AssistantMessage {
    const parts = thought ? [thought] : [];
    for (const action of actions) {
      if (action.tool === 'execute_sql') {
        parts.push(`Action: Operation\n\`\`\`sql\n${String(action.arguments['query'] ?? '')}\n\`\`\``);
      } else if (action.tool === 'commit_final_answer') {
        // Raw text, as decoded from a reply, goes back as it was read (with its leading space, if any).
        const raw = action.arguments['answer_text'];
        parts.push(
          `Action: Answer\nFinal Answer:${typeof raw === 'string' ? raw : ` ${pythonList(action.arguments['answers'])}`}`,
        );
      } else {
        // The text protocol has no other action; say it so a reader of the transcript sees why.
        parts.push(`Action: ${action.tool} ${JSON.stringify(action.arguments)}`);
      }
    }
    return { role: 'assistant', content: parts.join('\n') };
  },
};

/** A JSON array written as a Python list literal (JSON strings and numbers are valid Python). */
function pythonList(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  return `[${list.map((value) => (value === null ? 'None' : typeof value === 'boolean' ? (value ? 'True' : 'False') : JSON.stringify(value))).join(', ')}]`;
}
