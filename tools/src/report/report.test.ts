import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, type Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../program.js';
import { readRunFolder, renderReport, writeReport } from './index.js';
import { pickGroups } from './trajectory-picker.js';
import { taskLine } from './viewer.js';

const jsonl = (values: readonly unknown[]) => `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;

function trajectory(
  taskId: string,
  harnessId: string,
  attempt: number,
  success: boolean,
  training: { step: number; role: 'base' | 'rescue'; retained: boolean },
): Trajectory {
  return {
    schemaVersion: 1,
    id: `${taskId}#${harnessId}#${attempt}`,
    runId: 'run',
    env: 'dbbench',
    split: 'dev',
    taskId,
    harnessId,
    policyId: 'sim',
    policyVersion: `sim@${training.step - 1}`,
    attempt,
    seed: 1,
    messages: [
      {
        role: 'system',
        content: harnessId === 'h0' ? 'Answer with SQL.' : 'Answer with SQL.\nLook at the table first.',
      },
      { role: 'user', content: `Question of <${taskId}>` },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [{ id: 'c1', name: 'execute_sql', arguments: '{"query":"SELECT 1"}' }],
      },
      { role: 'tool', content: '[(1,)]', toolCallId: 'c1' },
    ],
    turns: [],
    stopReason: 'done',
    evaluation: { reward: success ? 1 : 0, success, checks: [{ name: 'answer', passed: success }], details: {} },
    usage: { promptTokens: 10, completionTokens: 5 },
    timings: { startedAt: '2025-01-01T00:00:00.000Z', openMs: 1, evaluateMs: 1, totalMs: 2 },
    infraErrors: [],
    training: { ...training, groupId: `${training.step}:${taskId}` },
  };
}

/** A step's trajectories: one plain group, and one all-failed group rescued (or not) by variants. */
function stepTrajectories(step: number, rescuedTask: string, rescueWorks: boolean): Trajectory[] {
  return [
    trajectory(`plain-${step}`, 'h0', 0, true, { step, role: 'base', retained: true }),
    trajectory(`plain-${step}`, 'h0', 1, false, { step, role: 'base', retained: true }),
    trajectory(rescuedTask, 'h0', 0, false, { step, role: 'base', retained: false }),
    trajectory(rescuedTask, 'h0', 1, false, { step, role: 'base', retained: false }),
    trajectory(rescuedTask, 'v-inspect', 0, rescueWorks, { step, role: 'rescue', retained: true }),
    trajectory(rescuedTask, 'v-verify', 0, false, { step, role: 'rescue', retained: true }),
  ];
}

function metricsLine(step: number, effectiveGroupRate: number, rescueSuccessRate: number | null) {
  return {
    step,
    groups: 2,
    effectiveGroupRate,
    rescueTriggered: 1,
    rescueSucceeded: rescueSuccessRate ? 1 : 0,
    rescueSuccessRate,
    harnessUsage: { h0: { attempts: 4, successes: 1 }, 'v-inspect': { attempts: 1, successes: 1 } },
    ...(step % 2 === 0 ? { eval: { passAtK: 0.5, avgAtK: 0.4, k: 3 } } : {}),
  };
}

function summary(method: string, seed: number, avgAtK: number) {
  return {
    schemaVersion: 1,
    method,
    env: 'dbbench',
    seed,
    steps: 2,
    k: 2,
    policyVersion: 'sim@2',
    evalUnderH0: { passAtK: avgAtK + 0.2, avgAtK, k: 3 },
    initialEvalUnderH0: { passAtK: 0.5, avgAtK: 0.3, k: 3 },
    evals: [
      { step: 0, passAtK: 0.5, avgAtK: 0.3, k: 3 },
      { step: 2, passAtK: avgAtK + 0.2, avgAtK, k: 3 },
    ],
    effectiveGroupRate: 0.5,
    effectiveTokenShare: 0.5,
    rescueTriggerRate: 0.5,
    rescueSuccessRate: method === 'harness-s' ? 0.5 : 0,
    meanReward: 0.5,
    infraErrors: 0,
    trainTasks: 10,
    testTasks: 4,
    durationMs: 100,
  };
}

/** A reproduction folder as `reproduce` writes it, two methods over two seeds, with every optional part. */
async function reproductionFolder(options: { torn?: boolean } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'report-'));
  const records = [];
  for (const [method, seed, avgAtK] of [
    ['grpo', 1, 0.5],
    ['grpo', 2, 0.7],
    ['harness-s', 1, 0.6],
    ['harness-s', 2, 0.8],
  ] as const) {
    const runDir = join('train', 'dbbench', 'main', method, `seed-${seed}`);
    await mkdir(join(dir, runDir), { recursive: true });
    await writeFile(join(dir, runDir, 'summary.json'), JSON.stringify(summary(method, seed, avgAtK)));
    const metrics = jsonl([metricsLine(1, 0.5, method === 'harness-s' ? 1 : null), metricsLine(2, 0.75, null)]);
    await writeFile(join(dir, runDir, 'metrics.jsonl'), options.torn ? `${metrics}{"step":3,"gro` : metrics);
    const trajectories = [
      ...stepTrajectories(1, `hard-${seed}-a`, true),
      ...stepTrajectories(2, `hard-${seed}-b`, false),
    ];
    await writeFile(join(dir, runDir, 'trajectories.jsonl'), jsonl(trajectories));
    if (method === 'harness-s') {
      await writeFile(
        join(dir, runDir, 'router.jsonl'),
        jsonl([
          {
            step: 1,
            anchoredAtStep: 0,
            policyVersion: 'sim@0',
            h0TopShare: 0.25,
            topShares: { h0: 0.25, 'v-inspect': 0.75 },
          },
          {
            step: 2,
            anchoredAtStep: 1,
            policyVersion: 'sim@1',
            h0TopShare: 0.75,
            topShares: { h0: 0.75, 'v-inspect': 0.25 },
          },
          // Anchored on the trained policy (the run has 2 steps).
          { step: 3, anchoredAtStep: 2, policyVersion: 'sim@2', h0TopShare: 1, topShares: { h0: 1 } },
        ]),
      );
    }
    records.push({ ...summary(method, seed, avgAtK), variant: 'main', runDir });
  }
  await writeFile(join(dir, 'results.json'), JSON.stringify({ schemaVersion: 1, records }));
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ command: 'reproduce', envs: ['dbbench'], seeds: [1, 2], quick: true }),
  );
  await mkdir(join(dir, 'profiles', 'dbbench', 'initial'), { recursive: true });
  await writeFile(
    join(dir, 'profiles', 'dbbench', 'initial', 'profiles.json'),
    JSON.stringify({
      env: 'dbbench',
      tasks: [{ id: 'a' }, { id: 'b' }],
      h0: { harnessId: 'h0', helps: [], hurts: [] },
      variants: [{ harnessId: 'v-inspect', direction: 'schema-grounding', helps: ['a', 'b'], hurts: ['c'] }],
    }),
  );
  await mkdir(join(dir, 'pools', 'dbbench'), { recursive: true });
  await writeFile(
    join(dir, 'pools', 'dbbench', 'summary.json'),
    JSON.stringify({
      poolSize: 2,
      h0Coverage: 0.4,
      bestSingleCoverage: 0.5,
      bestSingle: 'v-inspect',
      jointCoverage: 0.7,
      jointCoverageWithH0: 0.8,
    }),
  );
  return dir;
}

const chartIds = (html: string) =>
  [...html.matchAll(/<svg class="chart" data-chart="([^"]+)"/g)].map((match) => match[1]);

describe('harness-s report', () => {
  it('writes one self-contained file with the main table as mean ± spread over seeds', async () => {
    const dir = await reproductionFolder();
    const html = await renderReport(dir, { generatedAt: 'now' });
    // grpo Avg@3 over seeds 0.5 and 0.7: mean 60.0, sample std 14.1; harness-s 70.0 ± 14.1 is best.
    expect(html).toMatch(
      /grpo<\/td><td class="num">2<\/td><td class="num"><span class="mean">80\.0<\/span><span class="pm">± 14\.1<\/span><\/td><td class="num"><span class="mean">60\.0<\/span>/,
    );
    expect(html).toMatch(/<td class="num best"><span class="mean">70\.0<\/span><span class="pm">± 14\.1/);
    expect(html.indexOf('Pass@3 and Avg@3 under H0')).toBeLessThan(html.indexOf('id="curves"'));
    expect(html).toContain('Sibling pools');
    // Paired by seed: harness-s's Pass@3 and Avg@3 are 10 points above grpo's in both seeds, and
    // their effective groups equal: the same difference in every pair, no spread to judge by, so
    // nothing is marked as beyond the spread between seeds.
    expect(html).toMatch(
      /harness-s − grpo<\/td><td class="num">2<\/td>(<td class="num">\+10\.0 \(every pair\)<\/td>){2}<td class="num">\+0\.0 \(every pair\)<\/td>/,
    );
    // The headline cards say the same.
    expect(html).toContain(
      '<span class="even">+10.0</span> <small>points</small></div><div class="sub">70.0% vs 60.0%; the same in each of 2 seeds: no spread to judge it by</div>',
    );
    expect(html).toContain(
      '<span class="even">+0.0</span> <small>points</small></div><div class="sub">50.0% vs 50.0%; the same in each of 2 seeds: no spread to judge it by</div>',
    );
    // No network: nothing is loaded from anywhere.
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/@import|url\(/);
  });

  it('draws a chart for every part the folder holds', async () => {
    const html = await renderReport(await reproductionFolder());
    expect(chartIds(html)).toEqual([
      'dbbench-pass',
      'dbbench-avg',
      'dbbench-effective',
      'dbbench-rescue',
      'dbbench-router',
      'dbbench-profiles-initial',
    ]);
    // The router chart comes from router.jsonl: H0's mean share rises from 25% before training to
    // 75% at the re-anchoring before step 2 and 100% after training.
    expect(html).toContain('before training: H0 25%');
    expect(html).toContain('step 2: H0 75%');
    expect(html).toContain('after training: H0 100%');
    // Rescue success so far: each seed rescues 1 of 1 at step 1 and 0 of 1 at step 2, 1 of 2 in all.
    expect(html).toContain('<title>harness-s, step 1: 100% ± 0% (2 seeds)</title>');
    expect(html).toContain('<title>harness-s, step 2: 50% ± 0% (2 seeds)</title>');
  });

  it('shows only rescue groups a variant solved, at most the asked number, with their attempts', async () => {
    const folder = await readRunFolder(await reproductionFolder());
    const groups = await pickGroups(folder.runs, 2);
    expect(groups.map((group) => group.taskId)).toEqual(['hard-1-a', 'hard-2-a']);
    for (const group of groups) {
      expect(group.method).toBe('harness-s');
      expect(group.base.map((attempt) => attempt.harnessId)).toEqual(['h0', 'h0']);
      expect(group.rescue.map((attempt) => attempt.harnessId)).toEqual(['v-inspect', 'v-verify']);
    }
    const html = await renderReport(folder.dir);
    expect(html).toContain('Question of &lt;hard-1-a&gt;');
    expect(html).not.toContain('<hard-1-a>');
    expect(html).toContain('+ Look at the table first.');
  });

  it('reads what it can: a torn metrics line, missing train folders, no optional parts', async () => {
    const dir = await reproductionFolder({ torn: true });
    const folder = await readRunFolder(dir);
    expect(folder.runs.every((run) => run.steps.length === 2)).toBe(true);

    const bare = await mkdtemp(join(tmpdir(), 'report-bare-'));
    await writeFile(
      join(bare, 'results.json'),
      JSON.stringify({
        schemaVersion: 1,
        records: [{ ...summary('grpo', 1, 0.5), variant: 'main', runDir: 'train/gone' }, { bad: true }],
      }),
    );
    const html = await renderReport(bare);
    expect(chartIds(html)).toEqual(['dbbench-pass', 'dbbench-avg']);
    expect(html).toContain('1 part of the folder could not be read');
    expect(html).toContain('No rescue group');
  });

  it('reports a single training run folder, and refuses a folder with no results', async () => {
    const dir = await reproductionFolder();
    const run = join(dir, 'train', 'dbbench', 'main', 'harness-s', 'seed-1');
    await writeFile(join(run, 'config.json'), JSON.stringify({ command: 'train', env: 'dbbench' }));
    const folder = await readRunFolder(run);
    expect(folder.runs.map((entry) => [entry.record.method, entry.record.seed, entry.steps.length])).toEqual([
      ['harness-s', 1, 2],
    ]);

    const empty = await mkdtemp(join(tmpdir(), 'report-empty-'));
    await expect(readRunFolder(empty)).rejects.toBeInstanceOf(InputError);
    await expect(readRunFolder(empty)).rejects.toThrow(
      /is none of what a report reads: a reproduction \(results\.json\), a finished training run or an evaluation/,
    );
  });

  it("leaves a run's own H0 out of the variants chosen for rescue, whatever its id", async () => {
    const dir = await reproductionFolder();
    const run = join(dir, 'train', 'dbbench', 'main', 'harness-s', 'seed-1');
    await writeFile(join(run, 'config.json'), JSON.stringify({ command: 'train', env: 'dbbench', h0: 'h0-text' }));
    await rm(join(run, 'router.jsonl'));
    const usage = { 'h0-text': { attempts: 4, successes: 1 }, 'v-inspect': { attempts: 1, successes: 1 } };
    await writeFile(
      join(run, 'metrics.jsonl'),
      jsonl([1, 2].map((step) => ({ ...metricsLine(step, 0.5, 1), harnessUsage: usage }))),
    );
    const folder = await readRunFolder(run);
    expect(folder.runs.map((entry) => entry.h0)).toEqual(['h0-text']);
    const html = await renderReport(run);
    const from = html.slice(html.indexOf('Variants chosen for rescue'));
    const chart = from.slice(0, from.indexOf('</svg>'));
    // Every rescue attempt ran under the one variant; the base attempts under h0-text are not rescue.
    expect(chart).toContain('<title>step 1: v-inspect 100%</title>');
    expect(chart).not.toMatch(/h0-text|>H0</);
  });

  it('shows which test tasks a run unlocked and lost between its first and last evaluation', async () => {
    const dir = await reproductionFolder();
    const run = join(dir, 'train', 'dbbench', 'main', 'harness-s', 'seed-1');
    await writeFile(join(run, 'config.json'), JSON.stringify({ command: 'train', env: 'dbbench' }));
    const attempts = (step: number, solved: Record<string, number>) =>
      Object.entries(solved).flatMap(([task, count]) =>
        [0, 1, 2].map((attempt) =>
          trajectory(task, 'h0', attempt, attempt < count, { step, role: 'base', retained: false }),
        ),
      );
    await mkdir(join(run, 'evals'));
    // t-1 unlocked, t-2 lost, t-3 solved more often, t-4 the same; step 1's evaluation is not compared.
    await writeFile(join(run, 'evals', 'step-0.jsonl'), jsonl(attempts(0, { 't-1': 0, 't-2': 2, 't-3': 1, 't-4': 3 })));
    await writeFile(join(run, 'evals', 'step-1.jsonl'), jsonl(attempts(1, { 't-1': 3, 't-2': 3, 't-3': 3, 't-4': 3 })));
    await writeFile(
      join(run, 'evals', 'step-2.jsonl'),
      `${jsonl(attempts(2, { 't-1': 1, 't-2': 0, 't-3': 3, 't-4': 3 }))}{"taskId":"t-`,
    );
    const folder = await readRunFolder(run);
    expect(
      folder.runs[0]?.outcomes?.tasks.map(({ taskId, before, after }) => [taskId, before.solved, after.solved]),
    ).toEqual([
      ['t-1', 0, 1],
      ['t-2', 2, 0],
      ['t-3', 1, 3],
      ['t-4', 3, 3],
    ]);
    const html = await renderReport(run, { generatedAt: 'fixed' });
    const text = html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('harness-s 1 0 → 2 3 of 4 3 of 4 1 1');
    expect(text).toContain('Test tasks whose solved attempts changed (3 of 4)');
    expect(text).toContain('t-1 0 of 3 1 of 3 t-2 2 of 3 0 of 3 t-3 1 of 3 3 of 3');
    expect(text).not.toContain('t-4 3 of 3');
    // A run with one evaluation kept (or none) has nothing to compare: no section.
    await rm(join(run, 'evals', 'step-2.jsonl'));
    await rm(join(run, 'evals', 'step-1.jsonl'));
    expect(await renderReport(run, { generatedAt: 'fixed' })).not.toContain('id="test-tasks"');
  });

  it('is the report command, writing RUN_DIR/report.html or --out', async () => {
    const dir = await reproductionFolder();
    expect(await writeReport(dir)).toBe(join(dir, 'report.html'));
    const out = join(dir, 'elsewhere.html');
    const write = process.stdout.write;
    process.stdout.write = () => true;
    try {
      await createProgram().parseAsync(['node', 'harness-s', 'report', dir, '--out', out]);
    } finally {
      process.stdout.write = write;
    }
    expect(existsSync(out)).toBe(true);
    expect(await readFile(out, 'utf8')).toMatch(/^<!doctype html>/);
    // --out in a folder not made yet; a file or a missing folder given as the run.
    const nested = join(dir, 'reports', 'today', 'r.html');
    expect(await writeReport(dir, { out: nested })).toBe(nested);
    await expect(writeReport(out)).rejects.toThrow(`report: ${out} is a file; give a run's folder`);
    await expect(writeReport(join(dir, 'nope'))).rejects.toThrow(`report: no such folder ${join(dir, 'nope')}`);
  });

  it('names the router ablations by their rescue shape, as the text tables do', async () => {
    const dir = await reproductionFolder();
    const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8'));
    results.records.push(
      { ...summary('harness-s', 1, 0.6), variant: 'fixed-profiles', runDir: 'train/gone' },
      { ...summary('harness-s', 1, 0.6), variant: 'rescue-4x2', runDir: 'train/gone' },
    );
    await writeFile(join(dir, 'results.json'), JSON.stringify(results));
    const html = await renderReport(dir);
    // Group size 2: the main run 2 variants x 1, the breadth ablation 1 x 2.
    const routers = [...html.matchAll(/<td class="method">((?:adaptive|fixed) profiles, \dx\d)<\/td>/g)].map(
      (match) => match[1],
    );
    expect(routers).toEqual(['adaptive profiles, 2x1', 'fixed profiles, 2x1', 'adaptive profiles, 1x2']);
  });
});

describe('taskLine', () => {
  it('is the line that says what to do: after an introduction, or the first with text', () => {
    expect(taskLine('My name is Ana. My email is a@b.example.\nTask: Like every song in my playlist.')).toBe(
      'Task: Like every song in my playlist.',
    );
    expect(taskLine('\n  How many rows?\nThe table is T.')).toBe('How many rows?');
    expect(taskLine('')).toBe('');
  });
});
