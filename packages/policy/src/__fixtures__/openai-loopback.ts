/**
 * A loopback OpenAI-compatible server for the OpenAI policy's tests: replies as `live.handler`
 * says, records every request in `live.requests`; `useLoopbackServer()` starts it for a test file.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EpisodeContext, Message, PolicyResponse, ToolSpec } from '@harness-s/core';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { createOpenAIPolicy, type OpenAIPolicyOptions } from '../openai-policy.js';

/** A recorded response body, served byte for byte as the server sent it. */
export const fixture = (name: string): string => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

export interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}
/** `hang` accepts the request and never answers. */
export type Handler = (index: number) => Reply | 'hang';

export interface Recorded {
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** When the request arrived (`performance.now()`). */
  at: number;
}

export const json = (body: string, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers: { 'content-type': 'application/json', ...headers },
});

/** The running server's address, what it answers, and what it was asked. */
export const live: { baseUrl: string; handler: Handler; requests: Recorded[] } = {
  baseUrl: '',
  handler: () => json(fixture('openai-text.json')),
  requests: [],
};
const hanging: ServerResponse[] = [];

/** Starts the server for the calling test file, resetting the handler and the record before each test. */
export function useLoopbackServer(): void {
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const index = live.requests.length;
        live.requests.push({
          url: req.url,
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          at: performance.now(),
        });
        const reply = live.handler(index);
        if (reply === 'hang') {
          hanging.push(res);
          return;
        }
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    live.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  beforeEach(() => {
    live.requests = [];
    live.handler = () => json(fixture('openai-text.json'));
  });

  afterEach(() => {
    for (const res of hanging.splice(0)) res.destroy();
    vi.unstubAllEnvs();
  });
}

// The OpenAI policy reads nothing from the episode context.
export const context = { seed: 1, envTools: [] } as unknown as EpisodeContext;

export const userTurn: Message[] = [{ role: 'user', content: 'How many customers live in Berlin?' }];

export const sqlTool: ToolSpec = {
  name: 'execute_sql',
  description: 'Run one SQL statement against the database.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'The SQL statement.' } },
    required: ['query'],
  },
};

export function policy(options: Partial<OpenAIPolicyOptions> = {}) {
  return createOpenAIPolicy({
    baseUrl: live.baseUrl,
    model: 'gpt-4o-mini',
    apiKey: 'test-key',
    maxRetries: 0,
    ...options,
  });
}

export function ask(
  options: Partial<OpenAIPolicyOptions> = {},
  request: { messages?: Message[]; tools?: ToolSpec[]; signal?: AbortSignal } = {},
): Promise<PolicyResponse> {
  return policy(options)
    .startEpisode(context)
    .respond({ messages: request.messages ?? userTurn, tools: request.tools ?? [], ...request });
}

/** The rejection of a promise that must reject. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error) || outcome.message === 'expected a rejection') throw outcome;
  return outcome;
}
