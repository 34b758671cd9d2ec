import type { Message } from '@harness-s/core';
import { z } from 'zod';

const WireContent = z.union([
  z.string(),
  z.null(),
  z.array(z.object({ type: z.string(), text: z.string().optional() })),
]);
export const WireMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: WireContent.optional(),
  tool_calls: z
    .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
    .optional(),
  tool_call_id: z.string().optional(),
});
export const ChatRequest = z.object({
  model: z.string().optional(),
  messages: z.array(WireMessage).min(1),
  tools: z.array(z.object({ function: z.object({ name: z.string() }) })).optional(),
  n: z.number().int().optional(),
  stream: z.boolean().optional(),
  /** Seeds the episode's draws, as in-process (send the same on every turn of an episode). */
  seed: z.number().int().optional(),
});
export const BatchLine = z.object({
  groupId: z.string(),
  taskId: z.string(),
  harnessId: z.string(),
  context: z.enum(['h0', 'variant']),
  messages: z.array(WireMessage),
  advantage: z.number(),
  /** The training step the line comes from (exported batches carry it). */
  step: z.number().int().optional(),
  /** False for an attempt the run did not train on (`export --all`): refused. */
  trained: z.boolean().optional(),
});

const text = (content: z.infer<typeof WireContent> | undefined): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** Chat completions messages as the harness's codec reads them. */
export function fromWire(messages: ReadonlyArray<z.infer<typeof WireMessage>>): Message[] {
  return messages.map((message): Message => {
    const content = text(message.content);
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content };
      case 'user':
        return { role: 'user', content };
      case 'tool':
        return { role: 'tool', content, toolCallId: message.tool_call_id ?? '' };
      default:
        return {
          role: 'assistant',
          content,
          ...(message.tool_calls?.length
            ? { toolCalls: message.tool_calls.map((call) => ({ id: call.id, ...call.function })) }
            : {}),
        };
    }
  });
}
