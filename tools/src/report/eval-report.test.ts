import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, RunStore } from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0 } from '@harness-s/harness-dsh';
import { SimulatedPolicy } from '@harness-s/policy';
import { describe, expect, it, vi } from 'vitest';
import { smallEvalFlags } from '../__fixtures__/dbbench-pool.js';
import { runEval } from '../commands/eval.js';
import { renderReport } from './index.js';

describe('the report of an evaluation run', () => {
  it('is written when the evaluation ends: its rates, categories and every task with its attempts', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-report-')), 'run');
    const written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let summary: Awaited<ReturnType<typeof runEval>>;
    try {
      summary = await runEval({
        env: 'dbbench',
        policy: 'sim',
        harness: 'h0',
        k: 2,
        seed: 3,
        concurrency: 2,
        quiet: true,
        // dev-5 cannot be loaded.
        tasks: ['dev-0', 'dev-1', 'dev-5', 'dev-6', 'dev-7'],
        out,
      });
      expect(written.mock.calls.map(([text]) => String(text)).join('')).toContain(
        `Report: ${join(out, 'report.html')}`,
      );
    } finally {
      written.mockRestore();
    }
    const html = await readFile(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h1>Harness-S evaluation report</h1>');
    expect(html).toContain(`${(summary.passAtK * 100).toFixed(1)}%`);
    expect(html).toContain(`${summary.solved} / ${summary.tasks}`);
    // A task that could not be loaded is said on the first screen, apart from the ones counted.
    expect(summary.unloadable).toHaveLength(1);
    expect(html).toContain(`${summary.tasks} tasks (1 more could not be loaded)`);
    expect(html).toContain('tasks solved at least once; 1 not loadable, not counted');
    for (const task of summary.perTask) {
      expect(html).toContain(`data-group="${task.id}"`);
      expect(html).toContain(`${task.successes}/${task.attempts} solved`);
    }
    // Nothing outside the page: no script, style or image from anywhere else.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
  });

  it('says how to finish an evaluation that did not end, instead of a report of part of it', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-report-')), 'run');
    await runEval({ ...smallEvalFlags, out });
    await rm(join(out, 'summary.json'));
    expect(existsSync(join(out, 'config.json'))).toBe(true);
    await expect(renderReport(out)).rejects.toThrow(
      /did not finish \(no summary\.json\); finish it with eval --resume/,
    );
  });

  it('is made of an evaluation written through the library, whose config is its own', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-report-')), 'run');
    const environment = createDbbenchEnvironment();
    try {
      const { tasks } = await environment.loadTasks({ split: 'dev' });
      const store = await RunStore.create(out, { note: 'my own config' });
      const { summary } = await evaluate({
        environment,
        taskSet: { tasks: tasks.slice(0, 3), unloadable: [] },
        split: 'dev',
        harness: createHarness(dbbenchH0()),
        policy: new SimulatedPolicy(),
        k: 2,
        seed: 1,
        concurrency: 2,
        runId: 'library-eval',
        store,
      });
      await store.close();
      const html = await renderReport(out);
      expect(html).toContain('<h1>Harness-S evaluation report</h1>');
      expect(html).toContain(`${summary.solved} / ${summary.tasks}`);
    } finally {
      await environment.close();
    }
  });
});
