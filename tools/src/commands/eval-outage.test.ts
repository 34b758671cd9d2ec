import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalSummary, InfrastructureError, readTrajectories } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startChatServer, startCounterModel } from '../__fixtures__/chat-server.js';
import { loadPlugins } from '../plugins.js';
import { renderReport } from '../report/index.js';
import { runEval } from './eval.js';

let chat: ChatServer;
let down: string;
/** A server that lists its models once, then goes down: the run starts, and every attempt finds it gone. */
let goesDown: string;
beforeAll(async () => {
  await loadPlugins(new URL('../../../tests/src/fixtures/counter-plugin.ts', import.meta.url).href);
  chat = await startCounterModel();
  // A port nothing listens on: a server started and closed.
  const closed = await startChatServer(() => 'never');
  down = closed.baseUrl;
  await closed.close();
  const once = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    response.end(JSON.stringify({ object: 'list', data: [{ id: 'test', object: 'model' }] }));
    once.close();
  });
  await new Promise<void>((resolve) => once.listen(0, '127.0.0.1', resolve));
  goesDown = `http://127.0.0.1:${(once.address() as AddressInfo).port}/v1`;
});
afterAll(() => chat.close());

/** An evaluation of the counter tasks by a served model, each request tried once. */
const flags = {
  env: 'counter',
  policy: 'openai',
  model: 'test',
  harness: 'h0',
  k: 2,
  seed: 1,
  concurrency: 2,
  quiet: true,
  maxRetries: 0,
};

describe('eval when the model server is down', () => {
  it('fails with the first error instead of a Pass@k of 0, and --resume runs the lost attempts again', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-outage-')), 'run');
    // Nothing answers: refused at once, before a run folder is made, as a service problem (exit 1).
    const unreachable = runEval({ ...flags, baseUrl: down, out });
    await expect(unreachable).rejects.toThrow(
      `--base-url ${down}: no model server answers there (GET /models: ECONNREFUSED)`,
    );
    await expect(unreachable).rejects.toMatchObject({ category: 'infrastructure', code: 'model-server-unreachable' });
    expect(existsSync(out)).toBe(false);
    const failed = runEval({ ...flags, baseUrl: goesDown, out });
    await expect(failed).rejects.toBeInstanceOf(InfrastructureError);
    await expect(failed).rejects.toThrow(
      /^no attempt could be scored: every try ended in an infrastructure error \(the first: model server .* is unreachable .*ECONNREFUSED.*\); once the cause is fixed, eval --resume .* runs them again$/,
    );
    const lost = EvalSummary.parse(JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')));
    expect(lost.unscoredTasks).toHaveLength(lost.tasks);
    expect(lost.unsolved).toEqual([]);
    expect(lost.unscoredAttempts).toBe(lost.tasks * 2);
    // Its report shows no rate, not a Pass@k of 0.
    const page = await renderReport(out);
    expect(page).toContain(`0 / 0</div>`);
    expect(page).toContain(`${lost.tasks} with no scored attempt (infrastructure errors), left out`);
    expect(page).not.toContain('0.0%');

    // The server is back: the resumed evaluation runs every lost attempt again and scores it.
    const summary = await runEval({ ...flags, baseUrl: chat.baseUrl, resume: out }, new Set(['resume', 'baseUrl']));
    expect(summary.unscoredTasks).toEqual([]);
    expect(summary.unscoredAttempts).toBe(0);
    expect(summary.solved).toBe(summary.tasks);
    expect(summary.passAtK).toBe(1);
    // Both records of each attempt stay on disk; the report counts the last one.
    expect(await readTrajectories(out)).toHaveLength(2 * summary.tasks * 2);
    expect(await renderReport(out)).toContain(`${summary.tasks * 2} attempts</p>`);
  });

  it('runs an attempt lost to the server again --infra-retries times', async () => {
    const failing = await startCounterModel(undefined, () => true);
    const dir = await mkdtemp(join(tmpdir(), 'eval-retries-'));
    const requests = async (infraRetries: number) => {
      const before = failing.prompts.length;
      await expect(
        runEval({ ...flags, baseUrl: failing.baseUrl, infraRetries, out: join(dir, `retries-${infraRetries}`) }),
      ).rejects.toThrow(/^no attempt could be scored/);
      return failing.prompts.length - before;
    };
    try {
      const once = await requests(0);
      expect(once).toBeGreaterThan(0);
      expect(await requests(2)).toBe(3 * once);
    } finally {
      await failing.close();
    }
  });
});
