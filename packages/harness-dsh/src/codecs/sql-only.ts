import type { Action, ActionCodec, AssistantMessage, DecodedTurn } from '@harness-s/core';

/**
 * The minimal SQL-only text protocol: a reply is one ```sql block to run, or a line
 * `ANSWER: [...]` (a JSON list) to commit. Nothing else is parsed; the terse prompt of the
 * `minimal` harness family explains it in three lines.
 */
export const sqlOnlyCodec: ActionCodec = {
  kind: 'sql-only',
  oneActionPerTurn: true,

  apiTools(): [] {
    return [];
  },

  decode(message: AssistantMessage): DecodedTurn {
    const answer = /^ANSWER:\s*(.*)$/m.exec(message.content);
    if (answer) {
      let answers: unknown;
      try {
        answers = JSON.parse(answer[1] ?? '');
      } catch {
        return { ok: false, error: 'ANSWER must be followed by a JSON list, e.g. ANSWER: ["a", "b"]' };
      }
      if (!Array.isArray(answers)) return { ok: false, error: 'ANSWER must be a JSON list.' };
      return { ok: true, actions: [{ action: { tool: 'commit_final_answer', arguments: { answers } } }] };
    }
    const block = /```sql\s*\n([\s\S]*?)\n?```/.exec(message.content);
    const query = block?.[1]?.trim().replace(/\s*\n\s*/g, ' ');
    if (!query) return { ok: false, error: 'Reply with one ```sql block, or ANSWER: [...].' };
    return { ok: true, actions: [{ action: { tool: 'execute_sql', arguments: { query } } }] };
  },

  encode(actions: readonly Action[], thought = ''): AssistantMessage {
    const parts = thought ? [thought] : [];
    for (const action of actions) {
      if (action.tool === 'execute_sql') parts.push(`\`\`\`sql\n${String(action.arguments['query'] ?? '')}\n\`\`\``);
      else if (action.tool === 'commit_final_answer') {
        const answers = Array.isArray(action.arguments['answers']) ? action.arguments['answers'] : [];
        parts.push(`ANSWER: ${JSON.stringify(answers)}`);
      } else parts.push(`(${action.tool} is not part of this protocol)`);
    }
    return { role: 'assistant', content: parts.join('\n') };
  },
};
