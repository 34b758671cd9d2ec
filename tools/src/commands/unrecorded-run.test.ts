import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, InfrastructureError, readTrajectories } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startChatServer, startCounterModel } from '../__fixtures__/chat-server.js';
import { loadPlugins } from '../plugins.js';
import { newRunFolder } from '../unrecorded-run.js';
import { runEval } from './eval.js';
import { runTrain } from './train.js';

let chat: ChatServer;
/** A server that lists model `test` but refuses every chat request with 404, as vLLM does for a model it does not serve. */
let refusing: ChatServer;
beforeAll(async () => {
  await loadPlugins(new URL('../../../tests/src/fixtures/counter-plugin.ts', import.meta.url).href);
  chat = await startCounterModel();
  refusing = await startChatServer(() => ({ status: 404 }));
});
afterAll(async () => {
  await chat.close();
  await refusing.close();
});

const served = { env: 'counter', policy: 'openai', model: 'test', seed: 1, concurrency: 1, quiet: true, maxRetries: 0 };
const evalFlags = { ...served, harness: 'h0', k: 1 };
const removedNote = (dir: string) => `(the run recorded nothing, so ${dir} was removed: --out may name it again)`;

describe('a new run stopped by a setup mistake before recording anything', () => {
  it('eval: takes its folder away, so the corrected command may use the same --out', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'unrecorded-')), 'run');
    const failed = runEval({ ...evalFlags, baseUrl: refusing.baseUrl, out });
    await expect(failed).rejects.toBeInstanceOf(ConfigError);
    await expect(failed).rejects.toThrow(/rejected the request for model "test" \(HTTP 404/);
    await expect(failed).rejects.toThrow(removedNote(out));
    expect(existsSync(out)).toBe(false);
    const summary = await runEval({ ...evalFlags, baseUrl: chat.baseUrl, out });
    expect(summary.solved).toBe(summary.tasks);
  });

  it('train: empties a folder the user made rather than removing it', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'unrecorded-')), 'run');
    await mkdir(out);
    const flags = { ...served, method: 'grpo', steps: 1, batchSize: 2, k: 2, evalK: 1 };
    await expect(runTrain({ ...flags, baseUrl: refusing.baseUrl, out })).rejects.toThrow(
      `(the run recorded nothing, so what it wrote in ${out} was removed: --out may name it again)`,
    );
    expect(await readdir(out)).toEqual([]);
    const summary = await runTrain({ ...flags, baseUrl: chat.baseUrl, out });
    expect(summary.steps).toBe(1);
  });

  it('keeps a folder with a recorded attempt, and does not say it was removed', async () => {
    // Targets above 1 are refused: the first task's attempt is recorded before the run stops.
    const partly = await startChatServer((_, messages) => {
      const user = String(messages.find((message) => message.role === 'user')?.content ?? '');
      if (!/equal 1,/.test(user)) return { status: 404 };
      return messages.at(-1)?.role === 'tool'
        ? { toolCalls: [{ name: 'submit', arguments: {} }] }
        : { toolCalls: [{ name: 'add', arguments: { n: 1 } }] };
    });
    const out = join(await mkdtemp(join(tmpdir(), 'unrecorded-')), 'run');
    try {
      const failed = runEval({ ...evalFlags, baseUrl: partly.baseUrl, out, tasks: ['count-1', 'count-2'] });
      await expect(failed).rejects.toThrow(/rejected the request/);
      await expect(failed).rejects.not.toThrow(/was removed/);
      expect((await readTrajectories(out)).map((trajectory) => trajectory.taskId)).toEqual(['count-1']);
    } finally {
      await partly.close();
    }
  });

  it("keeps an interrupted run, one lost to an outage, one stopped by a bug, a resumed one, another's and one with a checkpoint", async () => {
    const root = await mkdtemp(join(tmpdir(), 'unrecorded-'));
    const started = async (name: string) => {
      const dir = join(root, name);
      await mkdir(dir);
      await writeFile(join(dir, 'config.json'), '{}');
      await writeFile(join(dir, 'trajectories.jsonl'), '');
      return dir;
    };
    const mistake = new ConfigError('wrong', { code: 'bad-flag' });
    const kept = async (dir: string, error: unknown, resumed = false) => {
      // Made before the run "started", as the commands make it.
      const folder = newRunFolder(dir, resumed);
      expect(await folder.discard(error)).toBe(error);
      expect(existsSync(join(dir, 'config.json'))).toBe(true);
    };
    await kept(await started('interrupted'), new ConfigError('interrupted; ...', { code: 'interrupted' }));
    await kept(await started('outage'), new InfrastructureError('gone', { code: 'every-attempt-lost' }));
    await kept(await started('bug'), new TypeError('x is undefined'));
    await kept(await started('resumed'), mistake, true);
    // Two starts with one --out: the second, refused, leaves the first's folder alone.
    await kept(await started('raced'), new ConfigError('already holds a training run', { code: 'run-exists' }));
    const held = await started('held');
    await writeFile(join(held, 'run.lock'), JSON.stringify({ pid: 1, host: 'elsewhere', since: '' }));
    await kept(held, mistake);
    const recorded = await started('recorded');
    await mkdir(join(recorded, 'checkpoints'));
    await writeFile(join(recorded, 'checkpoints', 'policy-step-1.json'), '{}');
    await kept(recorded, mistake);
    // The same folder without the checkpoint goes.
    const bare = await started('bare');
    const discarded = await newRunFolder(bare, false).discard(mistake);
    expect(discarded).toMatchObject({ code: 'bad-flag', cause: mistake });
    expect(String((discarded as Error).message)).toBe(
      `wrong (the run recorded nothing, so what it wrote in ${bare} was removed: --out may name it again)`,
    );
  });
});
