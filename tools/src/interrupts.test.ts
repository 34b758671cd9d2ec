import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leftoversOf, listenForInterrupts } from './interrupts.js';

const fixture = fileURLToPath(new URL('./__fixtures__/interrupted-command.ts', import.meta.url));

/** The fixture command, with what it printed and how it ended. */
function command(closeMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, String(closeMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, ended };
}

async function printed(child: ChildProcess, output: { stdout: string }, text: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!output.stdout.includes(text)) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`'${text}' never printed: ${output.stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('listenForInterrupts', () => {
  it('stops listening after closing, even when closing fails', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const interrupts = listenForInterrupts();
    expect(process.listenerCount('SIGINT')).toBe((before[0] ?? 0) + 1);
    await expect(interrupts.releaseAfter(() => Promise.reject(new Error('cannot remove')))).rejects.toThrow(
      'cannot remove',
    );
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });

  it('aborts on the first signal and lets the command close, even when the signal comes again at once', async () => {
    const { child, output, ended } = command(1500);
    await printed(child, output, 'working');
    child.kill('SIGINT');
    await printed(child, output, 'aborted');
    // The same Ctrl-C relayed by a wrapper; without a listener Node would exit here, mid-close.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    expect(await ended).toEqual({ code: 0, signal: null });
    expect(output.stdout).toBe('working\naborted: interrupted by SIGINT\nclosed\n');
    // One notice for the interrupt, none for its relays.
    expect(output.stderr).toBe(
      'harness-s: SIGINT: stopping and closing what the run opened (again, a second later, to exit at once)\n',
    );
  }, 60_000);

  it('exits at once with 130 on a signal repeated after the relay window, saying what may be left', async () => {
    const { child, output, ended } = command(30_000);
    await printed(child, output, 'working');
    child.kill('SIGTERM');
    await printed(child, output, 'aborted: interrupted by SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = Date.now();
    child.kill('SIGINT');
    expect(await ended).toEqual({ code: 130, signal: null });
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(output.stdout).not.toContain('closed');
    expect(output.stderr).toBe(
      'harness-s: SIGTERM: stopping and closing what the run opened (again, a second later, to exit at once)\n' +
        'harness-s: SIGINT again: exiting before closing everything; run the cleanup\n',
    );
  }, 60_000);
});

describe('leftoversOf', () => {
  it("names the cleanup of a run's own database server, and none for the embedded one that ends with the process", () => {
    expect(leftoversOf('dbbench')).toBeUndefined();
    expect(leftoversOf('dbbench', { db: 'pglite:/tmp/db' })).toBeUndefined();
    expect(leftoversOf('dbbench', { db: 'postgres://me:secret@127.0.0.1:5432/test' })).toBe(
      '`harness-s cleanup --env dbbench --db postgres://me:***@127.0.0.1:5432/test` removes leftover databases and roles',
    );
    expect(leftoversOf('swegym', { sandbox: 'docker' })).toBe(
      '`harness-s cleanup --env swegym` removes leftover containers',
    );
    expect(leftoversOf('counter')).toBeUndefined();
  });
});
