import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConfigError,
  type EpisodeContext,
  InfrastructureError,
  type Message,
  type PolicyResponse,
  type ToolSpec,
} from '@harness-s/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOpenAIPolicy, type OpenAIPolicyOptions } from './openai-policy.js';

/** A recorded response body, served byte for byte as the server sent it. */
const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}
/** `hang` accepts the request and never answers. */
type Handler = (index: number) => Reply | 'hang';

interface Recorded {
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const json = (body: string, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers: { 'content-type': 'application/json', ...headers },
});

let server: Server;
let baseUrl: string;
let handler: Handler;
let requests: Recorded[];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = requests.length;
      requests.push({ url: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const reply = handler(index);
      if (reply === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

beforeEach(() => {
  requests = [];
  handler = () => json(fixture('openai-text.json'));
});

afterEach(() => {
  for (const res of hanging.splice(0)) res.destroy();
  vi.unstubAllEnvs();
});

// The OpenAI policy reads nothing from the episode context.
const context = { seed: 1, envTools: [] } as unknown as EpisodeContext;

const userTurn: Message[] = [{ role: 'user', content: 'How many customers live in Berlin?' }];

const sqlTool: ToolSpec = {
  name: 'execute_sql',
  description: 'Run one SQL statement against the database.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'The SQL statement.' } },
    required: ['query'],
  },
};

function policy(options: Partial<OpenAIPolicyOptions> = {}) {
  return createOpenAIPolicy({ baseUrl, model: 'gpt-4o-mini', apiKey: 'test-key', maxRetries: 0, ...options });
}

function ask(
  options: Partial<OpenAIPolicyOptions> = {},
  request: { messages?: Message[]; tools?: ToolSpec[]; signal?: AbortSignal } = {},
): Promise<PolicyResponse> {
  return policy(options)
    .startEpisode(context)
    .respond({ messages: request.messages ?? userTurn, tools: request.tools ?? [], ...request });
}

/** The rejection of a promise that must reject. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error) || outcome.message === 'expected a rejection') throw outcome;
  return outcome;
}

describe('createOpenAIPolicy options', () => {
  it('identifies the policy by model and describes its settings without the API key', () => {
    const made = policy({ model: 'Qwen/Qwen2.5-7B-Instruct', apiKey: 'sk-secret', extraBody: { top_k: 20 } });
    expect(made.id).toBe('openai:Qwen/Qwen2.5-7B-Instruct');
    expect(made.version).toBe('Qwen/Qwen2.5-7B-Instruct');
    expect(made.needsPlan).toBe(false);
    expect(made.describe()).toStrictEqual({
      baseUrl,
      model: 'Qwen/Qwen2.5-7B-Instruct',
      temperature: 1,
      timeoutMs: 120_000,
      maxRetries: 0,
      extraBody: { top_k: 20 },
      returnTokenIds: false,
      logprobs: false,
    });
    expect(JSON.stringify(made.describe())).not.toContain('sk-secret');
  });

  it('defaults maxRetries to 4', () => {
    expect(createOpenAIPolicy({ baseUrl, model: 'm' }).describe()).toMatchObject({ maxRetries: 4 });
  });

  it.each([
    [{ baseUrl: undefined }, 'baseUrl'],
    [{ baseUrl: 'localhost:8000/v1' }, 'baseUrl'],
    [{ model: '' }, 'model'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ timeoutMs: 0.5 }, 'timeoutMs'],
    [{ temperature: -0.1 }, 'temperature'],
    [{ baseURL: 'http://x' }, 'baseURL'],
  ] as [Record<string, unknown>, string][])('rejects %o with a ConfigError naming %s', (bad, field) => {
    let thrown: unknown;
    try {
      policy(bad as Partial<OpenAIPolicyOptions>);
    } catch (error) {
      thrown = error;
    }
    expect(ConfigError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toContain(field);
  });

  it('takes the API key from OPENAI_API_KEY, else sends EMPTY', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    await createOpenAIPolicy({ baseUrl, model: 'm', maxRetries: 0 })
      .startEpisode(context)
      .respond({ messages: userTurn, tools: [] });
    vi.stubEnv('OPENAI_API_KEY', '');
    await createOpenAIPolicy({ baseUrl, model: 'm', maxRetries: 0 })
      .startEpisode(context)
      .respond({ messages: userTurn, tools: [] });
    expect(requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-from-env', 'Bearer EMPTY']);
  });
});

describe('OpenAI policy replies', () => {
  it('converts a text reply and its usage', async () => {
    const response = await ask();
    expect(response).toStrictEqual({
      message: { role: 'assistant', content: 'There are 42 customers in Berlin.' },
      usage: { promptTokens: 57, completionTokens: 9 },
    });
  });

  it('converts tool calls with their raw argument text and a null content to an empty string', async () => {
    handler = () => json(fixture('openai-tool-calls.json'));
    const response = await ask({}, { tools: [sqlTool] });
    expect(response.message).toStrictEqual({
      role: 'assistant',
      content: '',
      toolCalls: [
        {
          id: 'call_Xk3vQ9pLm2sT7wRb4nYc8dFe',
          name: 'execute_sql',
          arguments: '{"query":"SELECT COUNT(*) FROM customers WHERE city = \'Berlin\';"}',
        },
        { id: 'call_Ab1cD2eF3gH4iJ5kL6mN7oP8', name: 'list_tables', arguments: '{}' },
      ],
    });
    expect(response.usage).toStrictEqual({ promptTokens: 112, completionTokens: 48 });
  });

  it("reads vLLM's completion token ids and drops its empty tool_calls", async () => {
    handler = () => json(fixture('vllm-token-ids.json'));
    const response = await ask({ returnTokenIds: true });
    expect(response.completionTokenIds).toStrictEqual([9707, 0, 2585, 646, 358, 1492, 498, 3351, 30, 151645]);
    expect(response.message).toStrictEqual({ role: 'assistant', content: 'Hello! How can I help you today?' });
    expect(response.usage).toStrictEqual({ promptTokens: 9, completionTokens: 10 });
  });

  it("reads the completion tokens' log-probabilities, one per token id, when asked for them", async () => {
    handler = () => json(fixture('vllm-logprobs.json'));
    const response = await ask({ returnTokenIds: true, logprobs: true });
    expect(requests[0]?.body).toMatchObject({ return_token_ids: true, logprobs: true });
    expect(response.completionLogprobs).toStrictEqual([-0.0132, -0.0009, -0.2514, -1.0207, -0.0003, -0.0411, 0]);
    expect(response.completionLogprobs).toHaveLength(response.completionTokenIds?.length ?? -1);
    // A server that sends `logprobs: null` leaves them out.
    handler = () => json(fixture('openai-text.json'));
    expect((await ask({ logprobs: true })).completionLogprobs).toBeUndefined();
  });

  it('counts zero tokens when the server omits usage', async () => {
    handler = () => json(fixture('chat-no-usage.json'));
    const response = await ask();
    expect(response.usage).toStrictEqual({ promptTokens: 0, completionTokens: 0 });
    expect(response.message.content).toBe('The table has three columns: id, name and city.');
  });
});

describe('OpenAI policy requests', () => {
  it('sends the converted conversation, tools, model, sampling settings and extra body', async () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are a SQL agent.' },
      ...userTurn,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'execute_sql', arguments: '{"query":"SELECT COUNT(*) FROM customers"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', content: '42' },
      { role: 'assistant', content: 'There are 42.', toolCalls: [] },
      { role: 'user', content: 'And in Paris?' },
    ];
    await ask(
      {
        model: 'Qwen/Qwen2.5-7B-Instruct',
        temperature: 0.2,
        maxTokens: 256,
        returnTokenIds: true,
        // `model` here must not replace the configured one.
        extraBody: { top_k: 20, chat_template_kwargs: { enable_thinking: false }, model: 'other' },
      },
      { messages, tools: [sqlTool] },
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe('/v1/chat/completions');
    expect(requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(requests[0]?.body).toStrictEqual({
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
      return_token_ids: true,
      model: 'Qwen/Qwen2.5-7B-Instruct',
      messages: [
        { role: 'system', content: 'You are a SQL agent.' },
        { role: 'user', content: 'How many customers live in Berlin?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'execute_sql', arguments: '{"query":"SELECT COUNT(*) FROM customers"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '42' },
        { role: 'assistant', content: 'There are 42.' },
        { role: 'user', content: 'And in Paris?' },
      ],
      temperature: 0.2,
      max_tokens: 256,
      tools: [
        {
          type: 'function',
          function: { name: 'execute_sql', description: sqlTool.description, parameters: sqlTool.parameters },
        },
      ],
      stream: false,
    });
  });

  it('leaves out tools, max_tokens and return_token_ids when there are none', async () => {
    await ask({ temperature: 0 });
    expect(requests[0]?.body).toStrictEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'How many customers live in Berlin?' }],
      temperature: 0,
      stream: false,
    });
  });
});

describe('OpenAI policy failures', () => {
  it('retries a 429 as Retry-After says and then succeeds', async () => {
    handler = (index) =>
      index === 0
        ? json(fixture('openai-error-429.json'), 429, { 'retry-after-ms': '1' })
        : json(fixture('openai-text.json'));
    const start = performance.now();
    const response = await ask({ maxRetries: 2 });
    expect(response.message.content).toBe('There are 42 customers in Berlin.');
    expect(requests).toHaveLength(2);
    // The SDK's own backoff would wait at least 375 ms; a 1 ms Retry-After must be honoured instead.
    expect(performance.now() - start).toBeLessThan(300);
  });

  it('gives up on a 503 after maxRetries + 1 requests with an InfrastructureError', async () => {
    handler = () => ({ status: 503, body: 'upstream overloaded', headers: { 'retry-after-ms': '1' } });
    const error = await failure(ask({ maxRetries: 2 }));
    expect(requests).toHaveLength(3);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-server-unavailable', retryable: true });
    expect(error.message).toContain(baseUrl);
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('upstream overloaded');
  });

  it('rejects a 401 with a ConfigError naming the status, model and base URL, without retrying', async () => {
    handler = () => json(fixture('openai-error-401.json'), 401);
    const error = await failure(ask({ maxRetries: 3 }));
    expect(requests).toHaveLength(1);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-request-rejected' });
    for (const part of ['HTTP 401', 'gpt-4o-mini', baseUrl, 'Incorrect API key provided']) {
      expect(error.message).toContain(part);
    }
  });

  it("rejects an unknown model (404) and reads vLLM's flat error body", async () => {
    handler = () => json(fixture('vllm-error-404.json'), 404);
    const error = await failure(ask({ model: 'Qwen/Qwen3-70B', maxRetries: 3 }));
    expect(requests).toHaveLength(1);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-request-rejected' });
    for (const part of ['HTTP 404', 'Qwen/Qwen3-70B', baseUrl, 'The model `Qwen/Qwen3-70B` does not exist.']) {
      expect(error.message).toContain(part);
    }
  });

  it.each([
    ['a body that is not JSON', json('not json'), 'not JSON'],
    [
      'an HTML page',
      { status: 200, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } },
      'not a JSON object',
    ],
    ['no choices', json('{"choices": []}'), 'choices'],
    ['a choice without a message', json('{"choices": [{"index": 0, "finish_reason": "stop"}]}'), 'choices.0.message'],
  ] as [string, Reply, string][])('reports a 200 with %s as model-bad-response', async (_name, reply, missing) => {
    handler = () => reply;
    const error = await failure(ask({ maxRetries: 2 }));
    expect(requests).toHaveLength(1);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-bad-response' });
    expect(error.message).toContain(missing);
    expect(error.message).toContain(baseUrl);
  });

  it('gives up on a server that never answers after timeoutMs per attempt', async () => {
    handler = () => 'hang';
    const error = await failure(ask({ timeoutMs: 100, maxRetries: 1 }));
    expect(requests).toHaveLength(2);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-server-unavailable' });
    expect(error.message).toContain('did not answer within 100 ms');
  });

  it('reports a refused connection as model-server-unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(ask({ baseUrl: `http://127.0.0.1:${port}/v1` }));
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-server-unavailable' });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('propagates an abort during a request as the abort, not as an outage', async () => {
    handler = () => 'hang';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(ask({ maxRetries: 3 }, { signal: controller.signal }));
    expect(error.name).toBe('AbortError');
    expect(InfrastructureError.isInstance(error)).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await failure(ask({}, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(requests).toHaveLength(0);
  });

  it('leaves no abort listeners on an episode signal used for many turns', async () => {
    const controller = new AbortController();
    const session = policy().startEpisode(context);
    for (let turn = 0; turn < 12; turn += 1) {
      await session.respond({ messages: userTurn, tools: [], signal: controller.signal });
    }
    expect(requests).toHaveLength(12);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
