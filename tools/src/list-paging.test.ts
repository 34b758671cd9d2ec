import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appworldH0, pagingHelper } from '@harness-s/harness-dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from './commands/eval.js';

/**
 * AppWorld's `list-paging` transform against the embedded world: a policy that reads only the
 * first page of every list (the simulated policy with every other skill certain) fails the tasks
 * whose lists run past one page under H0, and solves them when the harness rewrites its calls.
 */
describe('AppWorld list-paging transform', () => {
  let dir = '';
  const h0 = appworldH0();
  const paging = (skill?: string) => ({
    ...h0,
    id: skill ? 'h0-paging-mechanised' : 'h0-paging',
    tools: [{ kind: 'list-paging', options: {}, ...(skill ? { skill } : {}) }],
  });
  const evalUnder = async (spec: object, name: string, policy = 'sim') => {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify(spec));
    const out = join(dir, `run-${name}`);
    const summary = await runEval({
      env: 'appworld',
      split: 'dev',
      policy,
      harness: file,
      k: 1,
      seed: 1,
      concurrency: 4,
      out,
      quiet: true,
      ...(policy === 'sim' ? { simConfig: join(dir, 'first-pages.json') } : {}),
    });
    return { summary, trajectories: await readFile(join(out, 'trajectories.jsonl'), 'utf8') };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-list-paging-'));
    // Every skill certain but paging, which it never does: first pages only.
    const skills = ['lookup-api-doc', 'ask-supervisor', 'intersect-not-union', 'check-after-write'];
    const theta = Object.fromEntries([...skills, 'finish-account-flow', 'recover-from-error'].map((s) => [s, 30]));
    await writeFile(
      join(dir, 'first-pages.json'),
      JSON.stringify({ defaultTheta: 30, actionFormatTheta: 30, theta: { ...theta, 'fetch-all-pages': -30 } }),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("rewrites the policy's first-page calls into reading every page, and the tasks pass", async () => {
    const base = await evalUnder({ ...h0, id: 'h0-copy' }, 'h0');
    const rewritten = await evalUnder(paging(), 'paging');
    expect(base.summary.tasks).toBe(18);
    expect(base.summary.solved).toBeLessThan(base.summary.tasks / 2);
    expect(rewritten.summary.solved).toBe(rewritten.summary.tasks);
    // The policy's code is what it wrote; the executed action goes through the helper.
    expect(base.trajectories).not.toContain(pagingHelper);
    expect(rewritten.trajectories).toContain(`${pagingHelper}('music', 'show_library_songs')(`);
    // A rewrite is the policy's action: its observation is not labelled as the harness's.
    expect(rewritten.trajectories).not.toContain('[list-paging');
  });

  it('changes nothing a policy that pages itself relies on: the oracle solves every task under it', async () => {
    const { summary } = await evalUnder(paging('fetch-all-pages'), 'paging-oracle', 'oracle');
    expect(summary.solved).toBe(summary.tasks);
  });
});
