import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppWorldStandIn, startAppWorldStandIn } from '../__fixtures__/appworld-stand-in.js';
import { type ChatServer, startChatServer } from '../__fixtures__/chat-server.js';
import { runEval } from './eval.js';
import { runEvolve } from './evolve.js';
import { runExport } from './export.js';
import { runTrain } from './train.js';

let standIn: AppWorldStandIn;
let chat: ChatServer;
let requests = 0;
beforeAll(async () => {
  standIn = await startAppWorldStandIn();
  // A model that answers in Python, right on two tries of three: in a code block, or through the
  // execute tool when the prompt asks for tool calls.
  chat = await startChatServer((prompt) => {
    requests += 1;
    const code = `apis.supervisor.complete_task(answer=${requests % 3 === 0 ? 4 : 3})`;
    return prompt.includes('with the execute tool')
      ? { content: 'I have the answer.', toolCalls: [{ name: 'execute', arguments: { code } }] }
      : `I have the answer.\n\`\`\`python\n${code}\n\`\`\``;
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
    // The minimal family in Python evaluates them too; its JavaScript one is refused the same way.
    await expect(runEval({ ...flags, harness: 'minimal', out: join(dir, 'minimal-js') })).rejects.toThrow(
      /harness minimal writes javascript: use --harness minimal-python, h0-python or h0-python-tools$/,
    );
    const minimal = await runEval({ ...flags, harness: 'minimal-python', out: join(dir, 'minimal') });
    expect(minimal.tasks).toBe(2);
    expect(standIn.code.slice(sent + 6)).toHaveLength(6);
    expect(chat.prompts.at(-1)).toContain('writing Python code');
  });

  it('runs h0-python-tools: Python through the execute tool, which the model is told runs Python', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'appworld-python-'));
    const data = join(dir, 'tasks.txt');
    await writeFile(data, 'abcdef0_1\nabcdef0_2\n');
    const sent = standIn.code.length;
    const asked = chat.tools.length;
    const summary = await runEval({
      env: 'appworld',
      ...model(),
      appworldUrl: [standIn.url],
      data,
      harness: 'h0-python-tools',
      k: 3,
      seed: 1,
      concurrency: 1,
      quiet: true,
      out: join(dir, 'tools'),
    });
    expect(summary.tasks).toBe(2);
    expect(standIn.code.slice(sent)).toHaveLength(6);
    expect(
      standIn.code.slice(sent).every((block) => /^apis\.supervisor\.complete_task\(answer=[34]\)$/.test(block)),
    ).toBe(true);
    expect(summary.avgAtK).toBeGreaterThan(0);
    const offered = chat.tools.slice(asked) as Array<Array<{ function: { name: string; description: string } }>>;
    expect(offered).toHaveLength(6);
    for (const tools of offered) {
      expect(tools.map((tool) => tool.function.name)).toEqual(['execute']);
      expect(tools[0]?.function.description).toMatch(/^Run Python code in a stateful REPL/);
    }
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
    // Exported for an external trainer, re-rendered under the run's base: the Python prompt.
    const exported = await runExport({ run: out, context: 'h0' });
    const examples = (await readFile(exported.path, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.every((example) => String(example.messages[0]?.content).includes('using a Python REPL'))).toBe(
      true,
    );
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
      "--base: no built-in harness 'nope' for --env appworld; use one of h0, h0-tools, h0-python, h0-python-tools, minimal",
    );
    await expect(evolve('h0-python')).rejects.toThrow(
      /is written in javascript code, but harness h0-python writes python: use --base h0, h0-tools or minimal/,
    );
  });
});
