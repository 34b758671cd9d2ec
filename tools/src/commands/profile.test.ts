import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, dbbenchH0 } from '@harness-s/harness-dsh';
import { readProfiles } from '@harness-s/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startChatServer } from '../__fixtures__/chat-server.js';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { captureStderr } from '../__fixtures__/stderr.js';
import { parseModelEndpoint, routerRankers } from '../llm.js';
import { runProfile } from './profile.js';

describe('harness-s profile with a summary writer, and LLM rankers, over an OpenAI-compatible endpoint', () => {
  let server: ChatServer;
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-profile-'));
    // Rankings name the candidates in reverse; of the summaries one is usable, one is JSON.
    server = await startChatServer((prompt) => {
      const candidates = [...prompt.matchAll(/^- (\S+): /gm)].map((match) => match[1]);
      return prompt.startsWith('You route an agent task')
        ? JSON.stringify({ ranking: candidates.reverse() })
        : prompt.includes('(repair direction: schema-grounding)')
          ? 'Helps where the schema has unusual columns.'
          : '{"summary": 1}';
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the model summaries it can use and keeps the template for the rest', async () => {
    const pool = join(dir, 'pool');
    await writePool(pool);
    const out = join(dir, 'profiles');
    await runProfile({
      env: 'dbbench',
      pool,
      out,
      policy: 'sim',
      k: 1,
      seed: 0,
      concurrency: 4,
      summarizer: `writer@${server.baseUrl}`,
      quiet: true,
    });
    const profiles = await readProfiles(out);
    const byDirection = Object.fromEntries(profiles.variants.map((profile) => [profile.direction, profile]));
    expect(byDirection['schema-grounding']).toMatchObject({
      summary: 'Helps where the schema has unusual columns.',
      summaryBy: 'llm:writer',
    });
    expect(byDirection['answer-formatting']?.summaryBy).toBe('template');
    expect(byDirection['answer-formatting']?.summary).toMatch(/^v-\w+ for answer-formatting: success \d+% vs H0/);
    expect(server.prompts).toHaveLength(2);
    expect(server.prompts.join('\n')).toMatch(/By task feature:\n- category=/);
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toMatch(/\| llm:writer \|/);

    // The same endpoint as an LLM ranker next to the two built-in rankers.
    const rankers = routerRankers([`ranker@${server.baseUrl}`], createHarness(dbbenchH0()), () => {});
    expect(rankers.map((ranker) => ranker.id)).toEqual(['profile-stats', 'similar-tasks', 'llm:ranker']);
    const candidates = [profiles.h0.harnessId, ...profiles.variants.map((profile) => profile.harnessId)];
    const task = { id: 'new', env: 'dbbench', split: 'test', instruction: 'How many rows?', tags: [] };
    expect(await rankers[2]?.rank({ task, profiles, candidates })).toEqual([...candidates].reverse());
  });
});

describe('MODEL@URL flags', () => {
  it('split at the last @ and name the flag when malformed', () => {
    expect(parseModelEndpoint('--llm-ranker', 'org/model@v2@http://127.0.0.1:8000/v1')).toEqual({
      model: 'org/model@v2',
      baseUrl: 'http://127.0.0.1:8000/v1',
    });
    expect(() => parseModelEndpoint('--summarizer', 'qwen3-8b')).toThrow(
      "--summarizer must look like MODEL@http://host:port/v1, got 'qwen3-8b'",
    );
    expect(() => parseModelEndpoint('--llm-ranker', '@http://x/v1')).toThrow(/--llm-ranker must look like/);
  });
});

describe('harness-s profile --tasks', () => {
  let dir = '';
  let pool = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-profile-tasks-'));
    pool = join(dir, 'pool');
    await writePool(pool);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const profileLog = (out: string, tasks: number) =>
    captureStderr(() => runProfile({ env: 'dbbench', pool, out, policy: 'sim', k: 1, seed: 3, concurrency: 4, tasks }));

  it('profiles a sample of the validation tasks, and says so', async () => {
    const out = join(dir, 'four');
    const log = await profileLog(out, 4);
    const profiles = await readProfiles(out);
    expect(profiles.tasks).toHaveLength(4);
    expect(Object.keys(profiles.variants[0]?.outcomes ?? {}).sort()).toEqual(
      profiles.tasks.map((task) => task.id).sort(),
    );
    // H0 and the pool's variants, 4 tasks, k 1.
    expect(log).toContain(`on 4 of 12 validation tasks`);
    expect(log).toContain(`paired seeds: ${(profiles.variants.length + 1) * 4} episodes`);
  });

  it('refuses an --out folder holding a run before profiling, and leaves it as it was', async () => {
    const out = join(dir, 'a-run');
    await mkdir(out);
    await writeFile(join(out, 'config.json'), '{"command":"train"}');
    await expect(profileLog(out, 1)).rejects.toThrow(
      /already holds a run \(config\.json\); profiles go in a new or empty folder/,
    );
    expect(await readdir(out)).toEqual(['config.json']);
  });

  it('says so when asked for more tasks than the validation split has', async () => {
    const out = join(dir, 'fifty');
    const log = await profileLog(out, 50);
    expect((await readProfiles(out)).tasks).toHaveLength(12);
    expect(log).toContain('note: --tasks 50, but there are 12 validation tasks: profiling them all');
    expect(log).toContain('on 12 validation tasks');
  });
});
