import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallEvalFlags, writePool } from '../__fixtures__/dbbench-pool.js';
import { findTrainingRuns, groupRuns, runCompare, runSettings } from './compare.js';
import { runEval } from './eval.js';
import { runTrain } from './train.js';

/** What `runCompare` prints. */
async function printed(run: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => chunks.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

describe('the settings a run is compared by', () => {
  it('flatten its configuration and recorded flags, without the seed and how it ran', () => {
    const settings = runSettings({
      env: 'dbbench',
      router: 'adaptive',
      config: {
        method: 'harness-s',
        k: 8,
        seed: 3,
        concurrency: 4,
        rescue: { variants: 4, attemptsPerVariant: 2 },
        advantage: { zeroVariance: 'drop' },
      },
      pool: ['v-1', 'v-2'],
      policy: { kind: 'simulated', step: 0, theta: { 'inspect-table': 1 } },
      flags: {
        k: 8,
        seed: 3,
        reanchorEvery: 2,
        db: 'postgres://x',
        out: '/runs/a',
        llmRanker: ['a@u', 'b@u'],
        zeroVariance: 'drop',
      },
    });
    expect(settings).toEqual({
      method: 'harness-s',
      k: '8',
      'rescue.variants': '4',
      'rescue.attemptsPerVariant': '2',
      // Once, as the configuration has it, not again as its flag.
      'advantage.zeroVariance': 'drop',
      env: 'dbbench',
      router: 'adaptive',
      pool: '2 variants',
      'policy.kind': 'simulated',
      'policy.theta.inspect-table': '1',
      reanchorEvery: '2',
      llmRanker: 'a@u,b@u',
    });
    // How long a model's answers are awaited is no setting; where it is served is (two checkpoints
    // may be served under one name).
    const served = (port: number, timeout: number) =>
      runSettings({
        config: { method: 'grpo' },
        policy: { model: 'm', baseUrl: `http://h:${port}/v1`, temperature: 1, timeoutMs: timeout, maxRetries: timeout },
        flags: { baseUrl: `http://h:${port}/v1`, requestTimeout: timeout, maxRetries: timeout, model: 'm' },
      });
    expect(served(8100, 1)).toEqual(served(8100, 2));
    expect(served(8100, 1)).toEqual({
      method: 'grpo',
      'policy.model': 'm',
      'policy.baseUrl': 'http://h:8100/v1',
      'policy.temperature': '1',
      model: 'm',
    });
    expect(served(8101, 1)).not.toEqual(served(8100, 1));
  });

  it('group runs by what differs between them, or by the settings asked for', () => {
    const run = (seed: number, settings: Record<string, string>) => ({
      dir: `/r/${seed}`,
      settings,
      summary: { seed } as never,
    });
    const runs = [
      run(1, { method: 'grpo', k: '8' }),
      run(2, { method: 'grpo', k: '8' }),
      run(1, { method: 'harness-s', k: '8', router: 'fixed' }),
    ];
    const { keys, groups } = groupRuns(runs);
    expect(keys).toEqual(['method', 'router']);
    expect(groups.map((group) => [group.settings, group.runs.length])).toEqual([
      [{ method: 'grpo', router: '-' }, 2],
      [{ method: 'harness-s', router: 'fixed' }, 1],
    ]);
    expect(groupRuns(runs, ['k']).groups).toHaveLength(1);
    expect(() => groupRuns(runs, ['reanchor'])).toThrow(
      "--by: no run has the setting 'reanchor'; they have method, k, router",
    );
  });
});

describe('harness-s compare', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-compare-'));
    const pool = join(dir, 'pool');
    await writePool(pool);
    const flags = { env: 'dbbench', method: 'harness-s', steps: 1, k: 2, batchSize: 2, pool, evalK: 1, concurrency: 4 };
    const runs = join(dir, 'runs');
    for (const [seed, router] of [
      [1, 'adaptive'],
      [2, 'adaptive'],
      [1, 'fixed'],
    ] as const)
      await runTrain({ ...flags, seed, router, quiet: true, out: join(runs, `${router}-${seed}`) });
    // An evaluation run among them is not a training run.
    await runEval({ ...smallEvalFlags, concurrency: 4, limit: 2, out: join(runs, 'eval') });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints one row per configuration, its seeds together, and says what it left out', async () => {
    const text = await printed(() => runCompare([join(dir, 'runs')]));
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^router\s+runs\s+seeds\s+Pass@1\s+Avg@1\s+effective groups\s+all-failed groups\s+rescue success$/,
    );
    expect(lines[2]).toMatch(/^adaptive\s+2\s+1,2\s/);
    expect(lines[3]).toMatch(/^fixed\s+1\s+1\s/);
    expect(text).toContain('3 training runs, under H0 on their test tasks');
    // One name for one setup: the router as --router names it, the rescue shape with its default.
    const { runs } = await findTrainingRuns([join(dir, 'runs')]);
    expect(runs.map((run) => [run.settings['router'], run.settings['rescue']])).toEqual([
      ['adaptive', '2x1'],
      ['adaptive', '2x1'],
      ['fixed', '2x1'],
    ]);
    // A run given twice, or inside a folder given, counts once.
    const again = await findTrainingRuns([join(dir, 'runs'), join(dir, 'runs'), runs[0]?.dir ?? '']);
    expect(again.runs.map((run) => run.dir)).toEqual(runs.map((run) => run.dir));
    expect(text).toMatch(/left out, not training runs: .*eval\n/);
    // A run stopped before its end (no summary.json yet) is named, not dropped without a word.
    const stopped = join(dir, 'stopped', 'adaptive-3');
    await cp(join(dir, 'runs', 'adaptive-1'), stopped, { recursive: true });
    await rm(join(stopped, 'summary.json'));
    const withStopped = await printed(() => runCompare([join(dir, 'runs'), join(dir, 'stopped')]));
    expect(withStopped).toContain('3 training runs');
    expect(withStopped).toMatch(
      /left out, not ended \(no summary\.json; `train --resume` finishes a stopped run\): .*adaptive-3\n/,
    );
    await expect(runCompare([join(dir, 'stopped')])).rejects.toThrow(
      /no training run .* in .*stopped; left out, not ended .*adaptive-3/,
    );
  });

  it('groups by the settings asked for, writes JSON, and refuses a folder without training runs', async () => {
    const groups = await printed(() =>
      runCompare([join(dir, 'runs', 'adaptive-1'), join(dir, 'runs', 'fixed-1')], { by: ['method'], json: true }),
    );
    const parsed = JSON.parse(groups) as Array<{
      settings: Record<string, string>;
      runs: Array<{ seed: number; dir: string }>;
    }>;
    expect(parsed).toHaveLength(1);
    expect(parsed[0]?.settings).toEqual({ method: 'harness-s' });
    expect(parsed[0]?.runs.map((run) => run.seed)).toEqual([1, 1]);
    await expect(runCompare([join(dir, 'pool')])).rejects.toThrow(
      /no training run \(a folder with a training summary.json\) in/,
    );
    await expect(runCompare([join(dir, 'nowhere')])).rejects.toThrow(`compare: no such folder ${join(dir, 'nowhere')}`);
    await writeFile(join(dir, 'notes.md'), 'x');
    await expect(runCompare([join(dir, 'notes.md')])).rejects.toThrow(/notes\.md: a file, not a folder/);
  });

  it('reads the summary over config.json: extended steps, runs without config.json, different evalK kept apart', async () => {
    const flags = {
      env: 'dbbench',
      method: 'grpo',
      k: 2,
      batchSize: 2,
      evalK: 1,
      concurrency: 4,
      quiet: true,
      seed: 1,
    };
    const others = join(dir, 'others');
    // Trained for 1 step, then continued to 2: it ran 2 steps, like a fresh 2-step run.
    await runTrain({ ...flags, steps: 1, out: join(others, 'extended') });
    const resume = { resume: join(others, 'extended'), steps: 2, quiet: true } as Parameters<typeof runTrain>[0];
    await runTrain(resume, new Set(['resume', 'steps', 'quiet']));
    await runTrain({ ...flags, steps: 2, seed: 2, out: join(others, 'fresh') });
    // The same run without its config.json, and one evaluated with k 2.
    await cp(join(others, 'fresh'), join(others, 'bare'), { recursive: true });
    await rm(join(others, 'bare', 'config.json'));
    await runTrain({ ...flags, steps: 2, evalK: 2, seed: 3, out: join(others, 'eval-k2') });
    const groups = await runCompare([others], { by: ['method', 'steps'] });
    expect(groups.map((group) => [group.settings, group.runs.map((run) => run.summary.seed)])).toEqual([
      [{ method: 'grpo', steps: '2', evalK: '1' }, [2, 1, 2]],
      [{ method: 'grpo', steps: '2', evalK: '2' }, [3]],
    ]);
    const text = await printed(() => runCompare([others], { by: ['method'] }));
    expect(text.split('\n')[0]).toMatch(/^method\s+evalK\s+runs\s+seeds\s+Pass@evalK\s+Avg@evalK/);
    // Methods that neither route nor rescue have neither setting.
    const { runs } = await findTrainingRuns([others]);
    expect(runs.every((run) => run.settings['router'] === undefined && run.settings['rescue'] === undefined)).toBe(
      true,
    );
    await writeFile(join(others, 'bare', 'config.json'), 'null');
    await expect(runCompare([others])).rejects.toThrow(/bare\/config.json: not a run's configuration/);
  });
});
