import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, InfrastructureError } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import {
  ask,
  context,
  failure,
  fixture,
  json,
  live,
  policy,
  type Reply,
  useLoopbackServer,
  userTurn,
} from './__fixtures__/openai-loopback.js';

useLoopbackServer();

describe('OpenAI policy failures', () => {
  it('retries a 429 as Retry-After says and then succeeds', async () => {
    live.handler = (index) =>
      index === 0
        ? json(fixture('openai-error-429.json'), 429, { 'retry-after-ms': '1200' })
        : json(fixture('openai-text.json'));
    const response = await ask({ maxRetries: 2 });
    expect(response.message.content).toBe('There are 42 customers in Berlin.');
    expect(live.requests).toHaveLength(2);
    // The SDK's own backoff before a first retry is at most 500 ms: a wait of 1.2 s is the server's.
    const [first, second] = live.requests.map((request) => request.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(1150);
  });

  it('gives up on a 503 after maxRetries + 1 requests with an InfrastructureError', async () => {
    live.handler = () => ({ status: 503, body: 'upstream overloaded', headers: { 'retry-after-ms': '1' } });
    const error = await failure(ask({ maxRetries: 2 }));
    expect(live.requests).toHaveLength(3);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-server-unavailable', retryable: true });
    expect(error.message).toContain(live.baseUrl);
    expect(error.message).toContain('HTTP 503');
    expect(error.message).toContain('upstream overloaded');
  });

  it('rejects a 401 with a ConfigError naming the status, model and base URL, without retrying', async () => {
    live.handler = () => json(fixture('openai-error-401.json'), 401);
    const error = await failure(ask({ maxRetries: 3 }));
    expect(live.requests).toHaveLength(1);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-request-rejected' });
    for (const part of ['HTTP 401', 'gpt-4o-mini', live.baseUrl, 'Incorrect API key provided']) {
      expect(error.message).toContain(part);
    }
  });

  it("rejects an unknown model (404) and reads vLLM's flat error body", async () => {
    live.handler = () => json(fixture('vllm-error-404.json'), 404);
    const error = await failure(ask({ model: 'Qwen/Qwen3-70B', maxRetries: 3 }));
    expect(live.requests).toHaveLength(1);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-request-rejected' });
    for (const part of ['HTTP 404', 'Qwen/Qwen3-70B', live.baseUrl, 'The model `Qwen/Qwen3-70B` does not exist.']) {
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
    live.handler = () => reply;
    const error = await failure(ask({ maxRetries: 2 }));
    expect(live.requests).toHaveLength(1);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'model-bad-response' });
    expect(error.message).toContain(missing);
    expect(error.message).toContain(live.baseUrl);
  });

  it('gives up on a server that never answers after timeoutMs per attempt', async () => {
    live.handler = () => 'hang';
    const error = await failure(ask({ timeoutMs: 100, maxRetries: 1 }));
    expect(live.requests).toHaveLength(2);
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
    expect(error.message).toMatch(
      new RegExp(
        `^model server http://127\\.0\\.0\\.1:${port}/v1 is unreachable \\(Connection error: fetch failed: .*ECONNREFUSED`,
      ),
    );
  });

  it('propagates an abort during a request as the abort, not as an outage', async () => {
    live.handler = () => 'hang';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(ask({ maxRetries: 3 }, { signal: controller.signal }));
    expect(error.name).toBe('AbortError');
    expect(InfrastructureError.isInstance(error)).toBe(false);
    expect(live.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await failure(ask({}, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(live.requests).toHaveLength(0);
  });

  it('leaves no abort listeners on an episode signal used for many turns', async () => {
    const controller = new AbortController();
    const session = policy().startEpisode(context);
    for (let turn = 0; turn < 12; turn += 1) {
      await session.respond({ messages: userTurn, tools: [], signal: controller.signal });
    }
    expect(live.requests).toHaveLength(12);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
