import type { Action, ActionCodec, AssistantMessage, DecodedTurn } from '@harness-s/core';

/** The environment tool a code block stands for. */
export const codeBlockTool = 'execute';

/**
 * Code actions as text, in the shape of AppWorld's ReAct code agent: the reply explains itself and
 * ends with one fenced code block (```js, ```javascript or ```python; a bare fence works too),
 * which becomes `execute({code})`. Only the first block is run, so one small block per turn is
 * what the prompt asks for.
 */
export const codeBlockCodec: ActionCodec = {
  kind: 'code-block',

  apiTools(): [] {
    return [];
  },

  decode(message: AssistantMessage): DecodedTurn {
    const block = /```(?:js|javascript|python|py)?[ \t]*\n([\s\S]*?)```/.exec(message.content);
    const code = block?.[1]?.replace(/\n$/, '');
    if (!code?.trim()) {
      return {
        ok: false,
        error: 'No code found. Write exactly one code block, fenced as ```js ... ```, with the code to run next.',
      };
    }
    return { ok: true, actions: [{ action: { tool: codeBlockTool, arguments: { code } } }] };
  },

  encode(actions: readonly Action[], thought = ''): AssistantMessage {
    const parts = thought ? [thought] : [];
    for (const action of actions) {
      if (action.tool === codeBlockTool) parts.push(`\`\`\`js\n${String(action.arguments['code'] ?? '')}\n\`\`\``);
      // The protocol has no other action; say it so a reader of the transcript sees why.
      else parts.push(`Action ${action.tool} ${JSON.stringify(action.arguments)} has no form in this protocol.`);
    }
    return { role: 'assistant', content: parts.join('\n\n') };
  },
};
