import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startChatServer } from '../__fixtures__/chat-server.js';
import { runEval } from './eval.js';
import { runEvolve } from './evolve.js';
import { runTrain } from './train.js';

/**
 * A stand-in for AppWorld's own environment server (`appworld serve environment`), which runs
 * Python and cannot be installed here: it speaks the same routes and replies, and like the real
 * one does not name a code language, but records the code it is sent instead of running it. A
 * task is completed by a block that calls `apis.supervisor.complete_task(`, and solved when that
 * block answers 3.
 */
interface StandIn {
  url: string;
  /** Every code block it was sent, in order. */
  code: string[];
  close(): Promise<void>;
}

async function startStandIn(): Promise<StandIn> {
  const code: string[] = [];
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
          current = { id: String(input.task_id), blocks: [] };
          return send(info(String(input.task_id)));
        case '/execute':
          code.push(String(input.code));
          current?.blocks.push(String(input.code));
          return send('Execution successful.');
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let standIn: StandIn;
let chat: ChatServer;
let requests = 0;
beforeAll(async () => {
  standIn = await startStandIn();
  // A model that answers in a Python block, right on two tries of three.
  chat = await startChatServer(() => {
    requests += 1;
    return `I have the answer.\n\`\`\`python\napis.supervisor.complete_task(answer=${requests % 3 === 0 ? 4 : 3})\n\`\`\``;
  });
});
afterAll(async () => {
  await chat.close();
  await standIn.close();
});

const model = () => ({ policy: 'openai', model: 'test', baseUrl: chat.baseUrl });

describe("AppWorld's own server, in Python", () => {
  it('refuses the JavaScript H0 for its tasks, naming h0-python, which evaluates them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'appworld-python-'));
    const data = join(dir, 'tasks.txt');
    await writeFile(data, 'abcdef0_1\nabcdef0_2\n');
    const flags = {
      env: 'appworld',
      ...model(),
      appworldUrl: [standIn.url],
      data,
      k: 3,
      seed: 1,
      concurrency: 1,
      quiet: true,
    };
    await expect(runEval({ ...flags, harness: 'h0', out: join(dir, 'js') })).rejects.toThrow(
      /task abcdef0_1 is written in python code, but harness h0 writes javascript: use --harness h0-python/,
    );
    const sent = standIn.code.length;
    const summary = await runEval({ ...flags, harness: 'h0-python', out: join(dir, 'python') });
    expect(summary.tasks).toBe(2);
    expect(summary.avgAtK).toBeCloseTo(4 / 6, 5);
    expect(standIn.code.slice(sent)).toHaveLength(6);
    expect(
      standIn.code.slice(sent).every((block) => /^apis\.supervisor\.complete_task\(answer=[34]\)$/.test(block)),
    ).toBe(true);
    expect(chat.prompts.at(-1)).toContain('using a Python REPL');
  });

  it('evolves a pool from h0-python and trains on it, on a file of task ids, the pool naming its base', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'appworld-python-'));
    const ids = join(dir, 'ids.txt');
    await writeFile(ids, Array.from({ length: 10 }, (_, index) => `task${index}_1\n`).join(''));
    const server = {
      env: 'appworld',
      ...model(),
      appworldUrl: [standIn.url],
      split: ids,
      seed: 1,
      concurrency: 1,
      quiet: true,
    };
    await expect(
      runTrain({ ...server, method: 'grpo', steps: 1, batchSize: 2, k: 2, evalK: 1, out: join(dir, 'js') }),
    ).rejects.toThrow(/is written in python code, but harness h0 writes javascript: use --base h0-python/);

    const pool = join(dir, 'pool');
    await runEvolve({
      ...server,
      base: 'h0-python',
      rounds: 1,
      out: pool,
      subset: 'development',
      k: 1,
      parents: 1,
      directions: 2,
      childrenPerDirection: 2,
      solved: 'majority',
    });
    const files = (await readdir(pool)).filter(
      (name) => name.endsWith('.json') && !['index.json', 'summary.json'].includes(name),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const spec = JSON.parse(await readFile(join(pool, name), 'utf8'));
      expect(spec.patch.base).toBe('h0-python');
      expect(spec.codec).toEqual({ kind: 'code-block', options: { language: 'python' } });
    }

    await expect(
      runTrain({
        ...server,
        method: 'harness-s',
        pool,
        base: 'h0',
        steps: 1,
        batchSize: 2,
        k: 2,
        evalK: 1,
        out: join(dir, 'x'),
      }),
    ).rejects.toThrow(/--base h0, but the pool's variants derive from h0-python/);
    const out = join(dir, 'run');
    const summary = await runTrain({
      ...server,
      method: 'harness-s',
      pool,
      steps: 1,
      batchSize: 2,
      k: 2,
      evalK: 1,
      out,
    });
    expect(summary.steps).toBe(1);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(config.h0).toBe('h0-python');
    // The file's ten tasks, cut 60/20/20.
    expect([config.trainTasks.length, config.testTasks.length]).toEqual([6, 2]);
    expect(config.trainTasks.every((id: string) => /^task\d_1$/.test(id))).toBe(true);
  });

  it('names the base harnesses there are, and the ones in the language of the embedded world', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'appworld-python-'));
    const flags = { env: 'appworld', policy: 'sim', rounds: 1, k: 1, seed: 1, concurrency: 1, quiet: true };
    const evolve = (base: string) =>
      runEvolve({
        ...flags,
        base,
        out: join(dir, base),
        subset: 'validation',
        parents: 1,
        directions: 1,
        childrenPerDirection: 1,
        solved: 'majority',
      });
    await expect(evolve('nope')).rejects.toThrow(
      "--base: no built-in harness 'nope' for --env appworld; use one of h0, h0-tools, h0-python, minimal",
    );
    await expect(evolve('h0-python')).rejects.toThrow(
      /is written in javascript code, but harness h0-python writes python: use --base h0, h0-tools or minimal/,
    );
  });
});
