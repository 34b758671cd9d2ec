import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type TrainingExample, TrainSummary } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { trainedPolicy } from '../policies.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = (args: string[]) =>
  spawn(join(root, 'node_modules/.bin/tsx'), ['--conditions=source', join(root, 'tools/src/cli.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });

let dir: string;
let server: ChildProcessByStdio<null, Readable, Readable>;
let url: string;
let serverLog = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'served-sim-'));
  await writePool(join(dir, 'pool'));
  // A policy that often fails DBBench's writes, so that groups fail every attempt and are rescued.
  await writeFile(join(dir, 'weak.json'), JSON.stringify({ theta: { 'inspect-table': -1, 'verify-after-write': -2 } }));
  const args = ['--env', 'dbbench', '--pool', join(dir, 'pool'), '--sim-config', join(dir, 'weak.json')];
  args.push('--port', '0', '--out', join(dir, 'served'));
  server = cli(['serve', 'sim', ...args]);
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve sim did not start: ${serverLog}`)), 60_000);
    server.stderr.on('data', (chunk) => {
      serverLog += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(serverLog);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    server.on('exit', (code) => reject(new Error(`serve sim exited (${code}): ${serverLog}`)));
  });
}, 90_000);

afterAll(async () => {
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.on('exit', resolve));
    process.kill(-(server.pid as number), 'SIGTERM');
    await exited;
  }
});

/** The hand-over a user writes with curl, in Node so that it runs wherever the tests do. */
const handOver = `node -e "fetch(process.argv[1] + '/sim/update?step=' + process.env.HARNESS_S_STEP, { method: 'POST', headers: { 'X-Harness-S-Run': process.env.HARNESS_S_RUN }, body: require('fs').readFileSync(process.env.HARNESS_S_BATCH) }).then((r) => r.ok || process.exit(1), () => process.exit(2))"`;

describe('harness-s serve sim', () => {
  it('is trained through train --policy openai --on-batch: each step batch, rescued attempts re-rendered under H0, reaches it', async () => {
    const out = join(dir, 'run');
    const train = cli([
      'train',
      ...['--env', 'dbbench', '--method', 'harness-s', '--pool', join(dir, 'pool'), '--seed', '2'],
      ...['--policy', 'openai', '--model', 'sim', '--base-url', url],
      ...[
        '--steps',
        '3',
        '--batch-size',
        '6',
        '--k',
        '4',
        '--rescue',
        '2x2',
        '--profile-tasks',
        '4',
        '--eval-every',
        '3',
      ],
      ...['--on-batch', `${handOver} ${url}`, '--out', out],
    ]);
    let log = '';
    train.stderr.on('data', (chunk) => {
      log += chunk;
    });
    // Bounded: a run that hangs is killed with its process group, and the test fails.
    const timer = setTimeout(() => process.kill(-(train.pid as number), 'SIGKILL'), 150_000);
    const code = await new Promise((resolve) => train.on('exit', resolve));
    clearTimeout(timer);
    expect(code, log).toBe(0);

    const state = (await (await fetch(`${url}/sim/state`)).json()) as {
      step: number;
      config: { theta: Record<string, number> };
      updates: Array<{ step: number; examples: number; unfollowed: string[]; run?: string }>;
    };
    expect(state.step).toBe(3);
    expect(state.updates.map((update) => update.step)).toEqual([1, 2, 3]);
    expect(state.updates.every((update) => update.unfollowed.length === 0)).toBe(true);
    // Each update says the run that handed it over: the run folder, as HARNESS_S_RUN gives it.
    expect(state.updates.map((update) => update.run)).toEqual([out, out, out]);
    // What the batches held is what the served model learned from.
    const batches = (await readdir(join(out, 'batches'))).sort();
    expect(batches).toEqual(['step-1.jsonl', 'step-2.jsonl', 'step-3.jsonl']);
    const examples: TrainingExample[] = [];
    for (const file of batches)
      examples.push(
        ...(await readFile(join(out, 'batches', file), 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
      );
    expect(state.updates.reduce((sum, update) => sum + update.examples, 0)).toBe(examples.length);
    expect(state.config.theta['inspect-table']).not.toBe(-1);
    // Its parameters are on disk, step by step, as a training run's snapshots.
    expect((await readdir(join(dir, 'served', 'checkpoints'))).sort()).toEqual([
      'policy-step-0.json',
      'policy-step-1.json',
      'policy-step-2.json',
      'policy-step-3.json',
    ]);
    // eval --checkpoint takes the folder: the parameters it serves now.
    const latest = await trainedPolicy(join(dir, 'served'), 'dbbench');
    expect(latest.step).toBe(3);
    expect(latest.config.theta).toEqual(state.config.theta);
    // Checked against the environment asked for, as a run's snapshot is.
    await expect(trainedPolicy(join(dir, 'served'), 'appworld')).rejects.toThrow(
      /the policy was trained on dbbench, not on appworld/,
    );
    const summary = TrainSummary.parse(JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')));
    expect(summary.evalUnderH0?.k).toBe(3);
    expect(summary.rescueTriggerRate).toBeGreaterThan(0);
    expect(examples.some((example) => example.harnessId !== 'h0' && example.context === 'h0')).toBe(true);

    // A second run against the same server is refused before its first step: it would sample from
    // the first run's parameters, and its first hand-over would be refused.
    const second = join(dir, 'second');
    const other = cli([
      'train',
      ...['--env', 'dbbench', '--method', 'grpo', '--steps', '1', '--seed', '3'],
      ...['--policy', 'openai', '--model', 'sim', '--base-url', url, '--on-batch', 'true', '--out', second],
    ]);
    let otherLog = '';
    other.stderr.on('data', (chunk) => {
      otherLog += chunk;
    });
    const otherTimer = setTimeout(() => process.kill(-(other.pid as number), 'SIGKILL'), 60_000);
    const otherCode = await new Promise((resolve) => other.on('exit', resolve));
    clearTimeout(otherTimer);
    expect(otherCode, otherLog).toBe(2);
    expect(otherLog).toContain(
      `--base-url ${url}: the model there has learned from run ${out} (steps 1, 2, 3), and serves that run only`,
    );
    expect(existsSync(second)).toBe(false);
    // The run it learned from is not refused: it may be continued (here, taken one step further).
    const further = cli(['train', '--resume', out, '--steps', '4', '--quiet']);
    let furtherLog = '';
    further.stderr.on('data', (chunk) => {
      furtherLog += chunk;
    });
    const furtherTimer = setTimeout(() => process.kill(-(further.pid as number), 'SIGKILL'), 120_000);
    const furtherCode = await new Promise((resolve) => further.on('exit', resolve));
    clearTimeout(furtherTimer);
    expect(furtherCode, furtherLog).toBe(0);
  }, 360_000);
});
