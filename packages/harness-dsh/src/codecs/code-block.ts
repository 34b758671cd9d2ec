import type { Action, ActionCodec, AssistantMessage, DecodedTurn } from '@harness-s/core';
import { z } from 'zod';
import { parseCodecOptions } from './codec-options.js';

/** The environment tool a code block stands for. */
export const codeBlockTool = 'execute';

/** Languages a code block is written in, with the fence each is shown in. */
const fences = { javascript: 'js', python: 'python' } as const;
export type CodeLanguage = keyof typeof fences;
/** The languages harnesses write code in. */
export const codeLanguages = Object.keys(fences) as [CodeLanguage, ...CodeLanguage[]];

const CodeBlockOptions = z.strictObject({ language: z.enum(codeLanguages).default('javascript') });

/** The language a code-block codec's options name (`{ language }`), JavaScript when they name none. */
export const codeBlockLanguage = (options: unknown): CodeLanguage =>
  parseCodecOptions(CodeBlockOptions, options).language;

/**
 * Code actions as text, in the shape of AppWorld's ReAct code agent: the reply explains itself and
 * ends with one fenced code block (```js, ```javascript, ```python or ```py; a bare fence works
 * too), which becomes `execute({code})`. Only the first block is run, so one small block per turn
 * is what the prompt asks for. The codec's language (`options.language`, JavaScript by default) is
 * the fence it writes and asks for.
 */
export function createCodeBlockCodec(options?: unknown): ActionCodec {
  const fence = fences[codeBlockLanguage(options)];
  return {
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
          error: `No code found. Write exactly one code block, fenced as \`\`\`${fence} ... \`\`\`, with the code to run next.`,
        };
      }
      return { ok: true, actions: [{ action: { tool: codeBlockTool, arguments: { code } } }] };
    },

    encode(actions: readonly Action[], thought = ''): AssistantMessage {
      const parts = thought ? [thought] : [];
      // Only the first block runs, so the code of several actions (a turn a tool transform
      // expanded, re-rendered) goes in one block, in order: decoding it runs all of it.
      const code = actions.filter((action) => action.tool === codeBlockTool);
      if (code.length > 0)
        parts.push(
          `\`\`\`${fence}\n${code.map((action) => String(action.arguments['code'] ?? '')).join('\n\n')}\n\`\`\``,
        );
      // The protocol has no other action; say it so a reader of the transcript sees why.
      for (const action of actions)
        if (action.tool !== codeBlockTool)
          parts.push(`Action ${action.tool} ${JSON.stringify(action.arguments)} has no form in this protocol.`);
      return { role: 'assistant', content: parts.join('\n\n') };
    },
  };
}

/** The JavaScript code-block codec (no options). */
export const codeBlockCodec: ActionCodec = createCodeBlockCodec();
