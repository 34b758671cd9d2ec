import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOutcome } from './src/run-outcome.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = ['--conditions=source', join(root, 'tools/src/cli.ts')];
const tsx = join(root, 'node_modules/.bin/tsx');

const trainArgs = [
  'train',
  '--env',
  'dbbench',
  '--method',
  'h0-resample',
  '--steps',
  '5',
  '--batch-size',
  '3',
  '--k',
  '3',
  '--eval-k',
  '1',
  '--seed',
  '4',
  '--quiet',
];

function runCli(args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: root, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
}

/** Starts a run and kills it with SIGKILL once `stepsDone` steps are committed. */
function runAndKill(args: string[], metricsFile: string, stepsDone: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: root, stdio: 'ignore', detached: true });
    const deadline = Date.now() + 120_000;
    const timer = setInterval(() => {
      const lines = existsSync(metricsFile) ? readFileSync(metricsFile, 'utf8').split('\n').filter(Boolean).length : 0;
      if (lines >= stepsDone || Date.now() > deadline) {
        clearInterval(timer);
        // The whole process group: tsx runs the CLI in a child process.
        process.kill(-(child.pid as number), 'SIGKILL');
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', (_, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`run ended by itself (${signal})`)),
    );
  });
}

describe('a training run killed with SIGKILL', () => {
  it('resumes from its last checkpoint and ends as an uninterrupted run, no group lost or doubled', async () => {
    const base = await mkdtemp(join(tmpdir(), 'resume-'));
    const whole = join(base, 'whole');
    const killed = join(base, 'killed');
    expect(await runCli([...trainArgs, '--out', whole])).toBe(0);

    await runAndKill([...trainArgs, '--out', killed], join(killed, 'metrics.jsonl'), 2);
    const partial = (await readFile(join(killed, 'metrics.jsonl'), 'utf8')).split('\n').filter(Boolean).length;
    expect(partial).toBeGreaterThanOrEqual(2);
    expect(partial).toBeLessThan(5);
    expect(existsSync(join(killed, 'summary.json'))).toBe(false);

    expect(
      await runCli(['train', '--resume', killed, ...trainArgs.slice(1).filter((arg) => arg !== '--quiet'), '--quiet']),
    ).toBe(0);
    const [expected, actual] = await Promise.all([runOutcome(whole), runOutcome(killed)]);
    expect(actual.metrics.map((line) => line['step'])).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(actual.trajectories.map(([id]) => id)).size).toBe(actual.trajectories.length);
    expect(actual).toEqual(expected);
  }, 240_000);
});
