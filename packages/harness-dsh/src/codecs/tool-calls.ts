import type { Action, ActionCodec, AssistantMessage, DecodedAction, DecodedTurn, ToolSpec } from '@harness-s/core';
import { z } from 'zod';
import { type CodeLanguage, codeLanguages } from './code-block.js';
import { parseCodecOptions } from './codec-options.js';

/**
 * Options of the `tool-calls` codec: `language`, the language of the code a harness passes in its
 * tool calls, where the environment's tool runs code (AppWorld's `execute`). The calls themselves
 * do not depend on it; it says which tasks the harness is written for, and what its tool transforms
 * write.
 */
const ToolCallsOptions = z.strictObject({ language: z.enum(codeLanguages).optional() });

/** The code language a tool-calls codec's options name, if any. */
export const toolCallsLanguage = (options: unknown): CodeLanguage | undefined =>
  parseCodecOptions(ToolCallsOptions, options).language;

/**
 * Native tool calls: the environment's tools are offered through the chat API, and each tool call
 * in the assistant message is one action. Arguments that are not a JSON object are a format
 * error; an unknown tool name is passed on, so the environment answers it with an observation.
 */
export const toolCallsCodec: ActionCodec = {
  kind: 'tool-calls',

  apiTools(envTools: readonly ToolSpec[]): ToolSpec[] {
    return [...envTools];
  },

  decode(message: AssistantMessage): DecodedTurn {
    const calls = message.toolCalls ?? [];
    if (calls.length === 0) {
      return { ok: false, error: 'No tool call found. Call one of the tools to act.' };
    }
    const actions: DecodedAction[] = [];
    for (const call of calls) {
      let parsed: unknown;
      try {
        parsed = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      } catch {
        return {
          ok: false,
          error: `The arguments of tool call ${call.name} are not valid JSON: ${call.arguments.slice(0, 200)}`,
        };
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { ok: false, error: `The arguments of tool call ${call.name} must be a JSON object.` };
      }
      actions.push({ action: { tool: call.name, arguments: parsed as Record<string, unknown> }, callId: call.id });
    }
    return { ok: true, actions };
  },

  encode(actions: readonly Action[], thought = ''): AssistantMessage {
    return {
      role: 'assistant',
      content: thought,
      toolCalls: actions.map((action, index) => ({
        id: `call_${index}`,
        name: action.tool,
        arguments: JSON.stringify(action.arguments),
      })),
    };
  },
};

/** The tool-calls codec for a spec's `codec.options` (checked; the codec is the same for every language). */
export function createToolCallsCodec(options?: unknown): ActionCodec {
  toolCallsLanguage(options);
  return toolCallsCodec;
}
