import type { Message, ToolSpec } from './message.js';

/** A message as the chat completions API writes it: what a model is sent, and what chat templates read. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
      /**
       * A reasoning model's thinking before this reply, where its server returned it apart: only in
       * training examples, under the name reasoning models' chat templates read.
       */
      reasoning_content?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool as the chat completions API offers it. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * Messages in the chat completions format. An assistant message without tool calls gets no
 * `tool_calls` key at all, because OpenAI rejects an empty `tool_calls` array.
 */
export function toChatMessages(messages: readonly Message[]): ChatMessage[] {
  return messages.map(toChatMessage);
}

function toChatMessage(message: Message): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Tool specs as function tools; the JSON schema goes as the parameters unchanged. */
export function toChatTools(tools: readonly ToolSpec[]): ChatTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
