import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What `print("a" + "b")` prints, for a print of string literals only; null for other code. */
function printed(code: string): string | null {
  const match = /^print\(((?:\s*"[^"]*"\s*\+?)+)\)$/.exec(code.trim());
  return match?.[1] ? [...match[1].matchAll(/"([^"]*)"/g)].map((part) => part[1]).join('') : null;
}

/**
 * A stand-in for AppWorld's own environment server (`appworld serve environment`), which runs
 * Python and cannot be installed here: it speaks the same routes and replies, and like the real
 * one does not name a code language, but records the code it is sent instead of running it
 * (a `print` of string literals prints them). A task is completed by a block that calls
 * `apis.supervisor.complete_task(`, and solved when that block answers 3.
 */
export interface AppWorldStandIn {
  url: string;
  /** Every code block it was sent, in order. */
  code: string[];
  /** Every task id it initialized, in order. */
  initialized: string[];
  close(): Promise<void>;
}

export async function startAppWorldStandIn(
  /** The task ids its data has (any, when not given): another is refused with HTTP 400, as the real one does. */
  tasks?: readonly string[],
): Promise<AppWorldStandIn> {
  const code: string[] = [];
  const initialized: string[] = [];
  let current: { id: string; blocks: string[] } | null = null;
  const info = (id: string) => ({
    task_id: id,
    instruction: 'How many playlists do I have in the music app?',
    supervisor: { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com', phone_number: '5550100' },
    datetime: '2023-05-18T12:00:00',
  });
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const input = body ? (JSON.parse(body) as { task_id?: string; code?: string }) : {};
      const send = (output: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ output }));
      };
      const done = () => current?.blocks.some((block) => block.includes('apis.supervisor.complete_task(')) ?? false;
      if (request.method === 'GET' && path.startsWith('/tasks/')) return send(info(decodeURIComponent(path.slice(7))));
      switch (path) {
        case '/initialize':
          if (tasks && !tasks.includes(String(input.task_id))) {
            response.writeHead(400, { 'content-type': 'application/json' });
            return response.end(JSON.stringify({ detail: `Task ${String(input.task_id)} not found.` }));
          }
          initialized.push(String(input.task_id));
          current = { id: String(input.task_id), blocks: [] };
          return send(info(String(input.task_id)));
        case '/execute':
          code.push(String(input.code));
          current?.blocks.push(String(input.code));
          return send(printed(String(input.code)) ?? 'Execution successful.');
        case '/task_completed':
          return send(done());
        case '/evaluate': {
          const solved = current?.blocks.some((block) => /complete_task\(answer=3\)/.test(block)) ?? false;
          return send({
            success: solved,
            num_tests: 1,
            passes: solved ? [{ requirement: 'answer' }] : [],
            failures: solved ? [] : [{ requirement: 'answer', trace: 'expected 3, got 4' }],
          });
        }
        default:
          return send(null);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    code,
    initialized,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
