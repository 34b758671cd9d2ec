import type { Action, ActionCodec, AssistantMessage, DecodedAction, DecodedTurn, ToolSpec } from '@harness-s/core';

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
