import {
  type AssistantMessage,
  toChatMessages as coreChatMessages,
  toChatTools as coreChatTools,
  formatZodError,
  type Message,
  type ToolSpec,
  type Usage,
} from '@harness-s/core';
import type OpenAI from 'openai';
import { z } from 'zod';

/** Core messages in the chat completions wire format (the SDK's types over core's). */
export const toChatMessages = (messages: readonly Message[]): OpenAI.ChatCompletionMessageParam[] =>
  coreChatMessages(messages) as OpenAI.ChatCompletionMessageParam[];

/** Core tool specs as function tools. */
export const toChatTools = (tools: readonly ToolSpec[]): OpenAI.ChatCompletionFunctionTool[] => coreChatTools(tools);

/**
 * The part of a chat completion body this policy relies on. The SDK's types describe what OpenAI
 * promises, but the body comes from whatever server sits at the base URL, so it is checked here.
 * Unknown fields (vLLM's `prompt_token_ids`, ...) are ignored.
 */
const ChatCompletionBody = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          /** A reasoning model's thinking, which a server's reasoning parser keeps out of `content`. */
          reasoning_content: z.string().nullish(),
          /** The same, as newer vLLM versions name it. */
          reasoning: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                // Some servers leave ids out; a stable fallback keeps tool results matchable.
                id: z.string().nullish(),
                function: z.object({
                  name: z.string(),
                  // A few servers send the arguments as an object instead of a JSON text.
                  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
                }),
              }),
            )
            .nullish(),
        }),
        /** Why the completion ended: `length` when it reached the token limit (its text is cut). */
        finish_reason: z.string().nullish(),
        /** vLLM's completion token ids, present when the request asked for `return_token_ids`. */
        token_ids: z.array(z.number().int().nonnegative()).nullish(),
        /** Present when the request asked for `logprobs`: one entry per completion token. */
        logprobs: z.object({ content: z.array(z.object({ logprob: z.number() })).nullish() }).nullish(),
      }),
    )
    .min(1, 'no choices in the response'),
  // Usage is informative only, so anything unexpected in it counts as unknown rather than an error.
  usage: z.unknown().optional(),
});

/** What one chat completion contributes to a policy response. */
export interface ParsedCompletion {
  message: AssistantMessage;
  usage: Usage;
  completionTokenIds?: number[];
  completionLogprobs?: number[];
  /** The completion stopped at the token limit (`finish_reason: length`). */
  cutOff?: true;
  /** The thinking the server returned apart from the content (`reasoning_content` or `reasoning`). */
  reasoning?: string;
}

/** Why a body could not be used; the caller wraps it in an error naming the server. */
export class MalformedCompletion extends Error {
  override name = 'MalformedCompletion';
}

/**
 * Converts a chat completion body to a core assistant message, usage and token ids. Throws
 * `MalformedCompletion` naming the missing part when the body is not a usable completion.
 */
export function parseChatCompletion(body: unknown): ParsedCompletion {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const preview = typeof body === 'string' && body !== '' ? ` ${JSON.stringify(body.slice(0, 80))}` : '';
    throw new MalformedCompletion(`body is not a JSON object (got ${describeType(body)}${preview})`);
  }
  const result = ChatCompletionBody.safeParse(body);
  if (!result.success) throw new MalformedCompletion(formatZodError(result.error));
  const choice = result.data.choices[0];
  if (choice === undefined) throw new MalformedCompletion('no choices in the response');

  const toolCalls = (choice.message.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.function.name,
    arguments:
      typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments),
  }));
  const reasoning = choice.message.reasoning_content ?? choice.message.reasoning;
  const message: AssistantMessage = {
    role: 'assistant',
    content: choice.message.content ?? '',
    ...(toolCalls.length ? { toolCalls } : {}),
  };
  return {
    message,
    usage: readUsage(result.data.usage),
    ...(choice.token_ids ? { completionTokenIds: choice.token_ids } : {}),
    ...(choice.logprobs?.content ? { completionLogprobs: choice.logprobs.content.map((token) => token.logprob) } : {}),
    ...(choice.finish_reason === 'length' ? { cutOff: true as const } : {}),
    ...(reasoning ? { reasoning } : {}),
  };
}

/** Reads `usage`, counting a missing or odd count as 0 (the core convention for unknown). */
function readUsage(usage: unknown): Usage {
  const counts = typeof usage === 'object' && usage !== null ? usage : {};
  const { prompt_tokens, completion_tokens } = counts as Record<string, unknown>;
  return { promptTokens: count(prompt_tokens), completionTokens: count(completion_tokens) };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

function describeType(value: unknown): string {
  if (value === undefined || value === '') return 'an empty body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
