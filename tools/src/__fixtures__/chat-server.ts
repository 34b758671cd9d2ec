import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A chat completions server on loopback for tests: `reply` answers each request from its first
 * message (and the whole conversation), with text or tool calls. `GET /models` lists one model, `test`.
 */
export interface ChatServer {
  /** The API base, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** The first message of every request, in order. */
  prompts: string[];
  /** The tools every request offered (its `tools`, or none), in order. */
  tools: unknown[][];
  close(): Promise<void>;
}

/** A reply with tool calls: each `{ name, arguments }` becomes one of the message's `tool_calls`. */
export interface ToolCallReply {
  content?: string;
  toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/** A reply that fails the request with this HTTP status, as a server in trouble does. */
export interface FailedReply {
  status: number;
}

export async function startChatServer(
  reply: (
    prompt: string,
    messages: Array<{ role: string; content?: unknown }>,
  ) => string | ToolCallReply | FailedReply,
): Promise<ChatServer> {
  const prompts: string[] = [];
  const tools: unknown[][] = [];
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.endsWith('/models')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'test', object: 'model', owned_by: 'tests' }] }));
      return;
    }
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { messages?: Array<{ role: string; content?: unknown }>; tools?: unknown[] };
      const messages = parsed.messages ?? [];
      tools.push(parsed.tools ?? []);
      const prompt = String(messages[0]?.content ?? '');
      prompts.push(prompt);
      const answer = reply(prompt, messages);
      if (typeof answer !== 'string' && 'status' in answer) {
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `failed with ${answer.status}` } }));
        return;
      }
      const message =
        typeof answer === 'string'
          ? { role: 'assistant', content: answer }
          : {
              role: 'assistant',
              content: answer.content ?? null,
              tool_calls: answer.toolCalls.map((call, index) => ({
                id: `call-${prompts.length}-${index}`,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'test',
          choices: [{ index: 0, message, finish_reason: typeof answer === 'string' ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    prompts,
    tools,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A model for the counter plug-in's tasks: it reads the target from the task and adds it, then
 * submits; `misses(n)` says whether its n-th addition (from 1) is off by one.
 */
export function startCounterModel(
  misses: (addition: number) => boolean = () => false,
  /** Targets whose every request the server fails with 503. */
  unavailable: (target: number) => boolean = () => false,
): Promise<ChatServer> {
  let additions = 0;
  return startChatServer((_, messages) => {
    const user = messages.find((message) => message.role === 'user');
    const target = Number(/equal (\d+)/.exec(String(user?.content ?? ''))?.[1] ?? 0);
    if (unavailable(target)) return { status: 503 };
    if (messages.at(-1)?.role === 'tool') return { toolCalls: [{ name: 'submit', arguments: {} }] };
    additions += 1;
    return { toolCalls: [{ name: 'add', arguments: { n: misses(additions) ? target + 1 : target } }] };
  });
}
