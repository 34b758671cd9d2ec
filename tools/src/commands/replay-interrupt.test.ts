import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../cli.ts', import.meta.url));
const heavy = { tool: 'execute_sql', arguments: { query: 'select count(*) from generate_series(1, 5000000)' } };

describe('harness-s replay, interrupted', () => {
  it('stops after the action running, closes the episode and the environment, and exits 130', async () => {
    const actions = join(await mkdtemp(join(tmpdir(), 'replay-interrupt-')), 'actions.json');
    await writeFile(actions, JSON.stringify([heavy, heavy, heavy]));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', entry, 'replay', '--env', 'dbbench', '--task', 'dev-0', '--actions', actions],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // Once the task is printed, the first action (a second or more of counting) is running.
    const end = Date.now() + 60_000;
    while (!output.stdout.includes('Task dev-0')) {
      if (child.exitCode !== null || Date.now() > end) throw new Error(`never started: ${output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGTERM');
    // Without a listener, Node would end here by the signal, leaving what the episode opened.
    expect(await ended).toEqual({ code: 130, signal: null });
    expect(output.stdout).toContain('[1] execute_sql');
    expect(output.stdout).not.toContain('[2]');
    expect(output.stdout).not.toContain('Evaluation:');
    expect(output.stderr).toContain('harness-s: error: interrupted before action 2 of 3; nothing was evaluated');
  }, 90_000);
});
