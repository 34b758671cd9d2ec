import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppWorldEnvironment, createAppWorldEnvironment } from './environment.js';
import { SandboxWorkerPool } from './sandbox/worker-pool.js';
import { type AppWorldServer, startAppWorldServer } from './server.js';

const pool = new SandboxWorkerPool(1);
let environment: AppWorldEnvironment;
/** A server with the default limits, and one with a small body cap and a short body deadline. */
let standard: AppWorldServer;
let strict: AppWorldServer;

beforeAll(async () => {
  environment = createAppWorldEnvironment({ pool });
  standard = await startAppWorldServer({ environment });
  strict = await startAppWorldServer({ environment, maxBodyBytes: 1024, bodyTimeoutMs: 300 });
});
afterAll(async () => {
  await Promise.all([standard.close(), strict.close()]);
  await environment.close();
});

interface Answer {
  status: number;
  body: unknown;
  /** Body bytes the client had written when the answer came. */
  sent: number;
}

/**
 * POSTs to `route`, writing `chunks` one after another (each once the previous one is flushed),
 * then ends the body unless `end` is false. Resolves with the first answer; fails if none comes
 * within `ms`. The client gives up its connection either way.
 */
function post(
  server: AppWorldServer,
  route: string,
  chunks: readonly Buffer[],
  options: { end?: boolean; contentLength?: number; ms?: number } = {},
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let sent = 0;
    let settled = false;
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (options.contentLength !== undefined) headers['content-length'] = options.contentLength;
    const outgoing = request(`${server.url}${route}`, { method: 'POST', headers });
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no answer within ${options.ms ?? 5_000} ms (${sent} bytes sent)`))),
      options.ms ?? 5_000,
    );
    outgoing.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        finish(() =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()), sent }),
        ),
      );
    });
    // The server may close the connection while the body is still being written: only the answer matters.
    outgoing.on('error', (error) => setTimeout(() => finish(() => reject(error)), 500));
    const write = (index: number): void => {
      if (settled) return;
      const chunk = chunks[index];
      if (chunk === undefined) {
        if (options.end !== false) outgoing.end();
        return;
      }
      outgoing.write(chunk, () => {
        sent += chunk.length;
        setImmediate(() => write(index + 1));
      });
    };
    write(0);
  });
}

const megabyte = 1024 * 1024;

describe('the AppWorld server: request bodies are bounded', () => {
  it('refuses a body over the default cap with 413 and a JSON error', async () => {
    const code = 'x'.repeat(20 * megabyte);
    const body = Buffer.from(JSON.stringify({ task_id: 'any_1', code }));
    const answer = await post(standard, '/execute', [body], { contentLength: body.length, ms: 20_000 });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({
      detail: `The request body is larger than ${8 * megabyte} bytes (the server's limit).`,
    });
  });

  it('answers 413 as soon as a body without a declared length passes the cap, without reading the rest', async () => {
    // An endless body in 512-byte pieces: 64 KB of it is written at most, and never ended.
    const chunks = Array.from({ length: 128 }, () => Buffer.alloc(512, 'x'));
    const answer = await post(strict, '/execute', chunks, { end: false });
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ detail: "The request body is larger than 1024 bytes (the server's limit)." });
    expect(answer.sent).toBeLessThan(64 * 1024);
  });

  it('answers 408 when a body stops arriving before its declared end', async () => {
    const started = Date.now();
    const answer = await post(strict, '/execute', [Buffer.from('{"task_id": "an')], { end: false, contentLength: 200 });
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ detail: 'The request body did not arrive within 0.3 s.' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('still serves bodies within the cap, on both servers', async () => {
    for (const server of [standard, strict]) {
      const answer = await post(server, '/execute', [Buffer.from('{"task_id": "any_1", "code": "print(1)"}')]);
      expect(answer).toEqual({
        status: 400,
        body: { detail: 'No task is initialized. Call /initialize first.' },
        sent: 40,
      });
    }
  });
});
