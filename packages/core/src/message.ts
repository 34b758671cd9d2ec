import { z } from 'zod';

/** A tool the policy may call, with JSON-schema parameters (OpenAI function-tool shape). */
export const ToolSpec = z.object({
  name: z.string().min(1),
  description: z.string(),
  /** JSON schema of the arguments object. */
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

/** One call of a tool inside an assistant message. */
export const ToolCall = z.object({
  id: z.string(),
  name: z.string(),
  /** Arguments as the model wrote them: a JSON text. Kept raw so malformed JSON can be reported. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** A chat message, in the shape OpenAI-compatible servers use. */
export const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string(),
    toolCalls: z.array(ToolCall).optional(),
  }),
  z.object({ role: z.literal('tool'), content: z.string(), toolCallId: z.string() }),
]);
export type Message = z.infer<typeof Message>;
export type AssistantMessage = Extract<Message, { role: 'assistant' }>;

/** Token counts of one model call; zero when unknown. */
export const Usage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens };
}
