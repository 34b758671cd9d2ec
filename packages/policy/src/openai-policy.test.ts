import { ConfigError, type Message } from '@harness-s/core';
import { describe, expect, it, vi } from 'vitest';
import {
  ask,
  context,
  fixture,
  json,
  live,
  policy,
  sqlTool,
  useLoopbackServer,
  userTurn,
} from './__fixtures__/openai-loopback.js';
import { createOpenAIPolicy, type OpenAIPolicyOptions } from './openai-policy.js';

useLoopbackServer();

describe('createOpenAIPolicy options', () => {
  it('identifies the policy by model and describes its settings without the API key', () => {
    const made = policy({ model: 'Qwen/Qwen2.5-7B-Instruct', apiKey: 'sk-secret', extraBody: { top_k: 20 } });
    expect(made.id).toBe('openai:Qwen/Qwen2.5-7B-Instruct');
    expect(made.version).toBe('Qwen/Qwen2.5-7B-Instruct');
    expect(made.needsPlan).toBe(false);
    expect(made.describe()).toStrictEqual({
      baseUrl: live.baseUrl,
      model: 'Qwen/Qwen2.5-7B-Instruct',
      temperature: 1,
      timeoutMs: 120_000,
      maxRetries: 0,
      extraBody: { top_k: 20 },
      returnTokenIds: false,
      logprobs: false,
      seeded: false,
    });
    expect(JSON.stringify(made.describe())).not.toContain('sk-secret');
  });

  it('defaults maxRetries to 4', () => {
    expect(createOpenAIPolicy({ baseUrl: live.baseUrl, model: 'm' }).describe()).toMatchObject({ maxRetries: 4 });
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
    await createOpenAIPolicy({ baseUrl: live.baseUrl, model: 'm', maxRetries: 0 })
      .startEpisode(context)
      .respond({ messages: userTurn, tools: [] });
    vi.stubEnv('OPENAI_API_KEY', '');
    await createOpenAIPolicy({ baseUrl: live.baseUrl, model: 'm', maxRetries: 0 })
      .startEpisode(context)
      .respond({ messages: userTurn, tools: [] });
    expect(live.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer sk-from-env',
      'Bearer EMPTY',
    ]);
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
    live.handler = () => json(fixture('openai-tool-calls.json'));
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
    live.handler = () => json(fixture('vllm-token-ids.json'));
    const response = await ask({ returnTokenIds: true });
    expect(response.completionTokenIds).toStrictEqual([9707, 0, 2585, 646, 358, 1492, 498, 3351, 30, 151645]);
    expect(response.message).toStrictEqual({ role: 'assistant', content: 'Hello! How can I help you today?' });
    expect(response.usage).toStrictEqual({ promptTokens: 9, completionTokens: 10 });
  });

  it("reads the completion tokens' log-probabilities, one per token id, when asked for them", async () => {
    live.handler = () => json(fixture('vllm-logprobs.json'));
    const response = await ask({ returnTokenIds: true, logprobs: true });
    expect(live.requests[0]?.body).toMatchObject({ return_token_ids: true, logprobs: true });
    expect(response.completionLogprobs).toStrictEqual([-0.0132, -0.0009, -0.2514, -1.0207, -0.0003, -0.0411, 0]);
    expect(response.completionLogprobs).toHaveLength(response.completionTokenIds?.length ?? -1);
    // A server that sends `logprobs: null` leaves them out.
    live.handler = () => json(fixture('openai-text.json'));
    expect((await ask({ logprobs: true })).completionLogprobs).toBeUndefined();
  });

  it('warns once for each of token ids and log-probabilities asked for and left out, and never when they come', async () => {
    const warnings: string[] = [];
    const asking = createOpenAIPolicy(
      { baseUrl: live.baseUrl, model: 'm', maxRetries: 0, returnTokenIds: true, logprobs: true },
      { warn: (message) => warnings.push(message) },
    );
    live.handler = () => json(fixture('openai-text.json'));
    for (let turn = 0; turn < 3; turn += 1)
      await asking.startEpisode(context).respond({ messages: userTurn, tools: [] });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/without the completion's token ids asked for \(return_token_ids\)/);
    expect(warnings[1]).toMatch(/without the log-probabilities asked for \(logprobs\)/);
    expect(warnings[0]).toContain(live.baseUrl);

    const served: string[] = [];
    const answered = createOpenAIPolicy(
      { baseUrl: live.baseUrl, model: 'm', maxRetries: 0, returnTokenIds: true, logprobs: true },
      { warn: (message) => served.push(message) },
    );
    live.handler = () => json(fixture('vllm-logprobs.json'));
    await answered.startEpisode(context).respond({ messages: userTurn, tools: [] });
    expect(served).toEqual([]);
  });

  it("records a reasoning model's thinking apart from its reply, under either name a server gives it", async () => {
    for (const field of ['reasoning_content', 'reasoning']) {
      const body = JSON.parse(fixture('openai-text.json'));
      body.choices[0].message[field] = 'Berlin: count the rows.';
      live.handler = () => json(JSON.stringify(body));
      const response = await policy().startEpisode(context).respond({ messages: userTurn, tools: [] });
      expect(response.reasoning, field).toBe('Berlin: count the rows.');
      expect(response.message.content).toBe('There are 42 customers in Berlin.');
    }
    live.handler = () => json(fixture('openai-text.json'));
    expect((await policy().startEpisode(context).respond({ messages: userTurn, tools: [] })).reasoning).toBeUndefined();
  });

  it('marks a reply cut at the token limit, and warns once that --max-tokens is too low', async () => {
    const warnings: string[] = [];
    const limited = createOpenAIPolicy(
      { baseUrl: live.baseUrl, model: 'm', maxRetries: 0, maxTokens: 16 },
      { warn: (message) => warnings.push(message) },
    );
    const cut = fixture('openai-text.json').replace('"finish_reason": "stop"', '"finish_reason": "length"');
    expect(cut).not.toBe(fixture('openai-text.json'));
    live.handler = () => json(cut);
    for (let turn = 0; turn < 2; turn += 1) {
      const response = await limited.startEpisode(context).respond({ messages: userTurn, tools: [] });
      expect(response.cutOff).toBe(true);
    }
    expect(warnings).toEqual([
      `model server ${live.baseUrl} cut a reply at the token limit (finish_reason length, max_tokens 16); such turns are recorded with cutOff, and a cut reply often fails to parse: raise --max-tokens`,
    ]);
    live.handler = () => json(fixture('openai-text.json'));
    expect((await limited.startEpisode(context).respond({ messages: userTurn, tools: [] })).cutOff).toBeUndefined();
  });

  it("sends the episode's seed with every request when seeded, and none otherwise", async () => {
    const seeded = createOpenAIPolicy({ baseUrl: live.baseUrl, model: 'm', maxRetries: 0, seeded: true });
    for (const seed of [7, 7, 12])
      await seeded.startEpisode({ ...context, seed }).respond({ messages: userTurn, tools: [] });
    await policy().startEpisode(context).respond({ messages: userTurn, tools: [] });
    expect(live.requests.map((request) => (request.body as { seed?: number }).seed)).toEqual([7, 7, 12, undefined]);
  });

  it('counts zero tokens when the server omits usage', async () => {
    live.handler = () => json(fixture('chat-no-usage.json'));
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
    expect(live.requests).toHaveLength(1);
    expect(live.requests[0]?.url).toBe('/v1/chat/completions');
    expect(live.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(live.requests[0]?.body).toStrictEqual({
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
    expect(live.requests[0]?.body).toStrictEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'How many customers live in Berlin?' }],
      temperature: 0,
      stream: false,
    });
  });
});
