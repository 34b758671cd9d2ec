import type { Message } from '@harness-s/core';

/** A chat model: messages in, the reply's text out (an OpenAI-compatible endpoint, usually). */
export type ChatFunction = (messages: Message[]) => Promise<string>;
