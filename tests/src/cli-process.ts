/**
 * The `harness-s` command line as a child process, from source (through tsx), for end-to-end tests
 * that run it whole, kill it, and run it again.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The repository root, where the CLI runs. */
export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(repositoryRoot, 'node_modules/.bin/tsx');
const cli = ['--conditions=source', join(repositoryRoot, 'tools/src/cli.ts')];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a child prints, gathered as it comes. */
function printed(child: ChildProcessByStdio<null, Readable, Readable>): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output.stderr += chunk;
  });
  return output;
}

/** Runs the CLI to its end, with these variables added to its environment; its exit code and what it printed. */
export function runCli(args: string[], variables: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...variables },
    });
    const output = printed(child);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, ...output }));
  });
}

/**
 * Starts the CLI in its own process group and kills the whole group with SIGKILL (tsx runs the
 * CLI in a child process) once `ready()` holds, or after `timeoutMs`. Rejects when the run ends
 * by itself first.
 */
export function runAndKill(args: string[], ready: () => boolean, timeoutMs = 180_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: repositoryRoot, stdio: 'ignore', detached: true });
    const deadline = Date.now() + timeoutMs;
    const timer = setInterval(() => {
      if (ready() || Date.now() > deadline) {
        clearInterval(timer);
        process.kill(-(child.pid as number), 'SIGKILL');
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', (_, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`the run ended by itself (${signal})`)),
    );
  });
}

/**
 * Starts the CLI in its own process group and, once `ready()` holds, sends SIGINT to the whole
 * group, as Ctrl-C in a terminal does (tsx relays it to the CLI as well, so the CLI gets it twice).
 * Resolves with how the run ended and how long after the signal. Rejects when it ends first.
 */
export function runAndInterrupt(
  args: string[],
  ready: () => boolean,
  timeoutMs = 180_000,
): Promise<CliRun & { afterSignalMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const output = printed(child);
    let sentAt: number | undefined;
    const deadline = Date.now() + timeoutMs;
    const timer = setInterval(() => {
      if (ready() || Date.now() > deadline) {
        clearInterval(timer);
        sentAt = Date.now();
        process.kill(-(child.pid as number), 'SIGINT');
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (sentAt === undefined) reject(new Error(`the run ended by itself (${code}): ${output.stderr}`));
      else resolve({ code, ...output, afterSignalMs: Date.now() - sentAt });
    });
  });
}

/**
 * Runs the CLI with its standard output closed by the reader at once, as `| head` or `| true` do
 * once they have what they want: its exit code and what it printed on stderr.
 */
export function runCliUnread(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}
