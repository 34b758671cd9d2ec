/**
 * Redis for the integration tests: the shared server (CI starts it at 127.0.0.1:6379) or a private
 * `redis-server` on another loopback port that a test may restart. Outside CI a missing server
 * skips the tests with a printed reason; in CI it fails them.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { pingRedis } from '../src/index.js';

export const inCi = Boolean(process.env['CI']) && process.env['CI'] !== 'false';

/** The shared Redis, on a database index of the queue tests' own. */
export const sharedRedisUrl = process.env['HARNESS_S_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379/7';

/** Null when the shared Redis answers; otherwise why the tests skip (outside CI) — in CI it throws. */
export async function sharedRedisSkipReason(): Promise<string | null> {
  const ping = await pingRedis(sharedRedisUrl);
  if (ping.ok) return null;
  const reason = `Redis at ${sharedRedisUrl} is unreachable (${ping.reason})`;
  if (inCi) throw new Error(`${reason}; CI must run the queue integration tests (.ci/services.sh starts Redis)`);
  console.warn(`skipping the queue integration tests: ${reason}`);
  return reason;
}

/** Null when `redis-server` can be run here; otherwise why the tests skip (outside CI). */
export function redisServerSkipReason(): string | null {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return null;
  } catch (error) {
    const reason = `no redis-server binary (${(error as Error).message})`;
    if (inCi) throw new Error(`${reason}; CI must run the Redis restart tests`);
    console.warn(`skipping the Redis restart tests: ${reason}`);
    return reason;
  }
}

/** A private Redis without persistence, as in CI, on a loopback port; `restart()` loses every key. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'queue-redis-'));

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    this.child = spawn('redis-server', [...args, '--dir', this.dir], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await pingRedis(this.url, 500)).ok) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start within 10 s`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    this.child = undefined;
  }

  async restart(downMs = 500): Promise<void> {
    await this.stop();
    await sleep(downMs);
    await this.start();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const counterWorkerScript = fileURLToPath(new URL('./counter-worker.ts', import.meta.url));

/** A counter worker process; `lines` collects what it logged. */
export interface WorkerProcess {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first logged line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Signals its whole process group (tsx runs the script in a child process). For SIGTERM only the
   * tsx process is signalled: it relays the signal, and a group signal would arrive twice.
   */
  kill(signal: NodeJS.Signals): void;
}

export function spawnCounterWorker(redisUrl: string, queueName: string, args: string[] = []): WorkerProcess {
  const child = spawn(tsx, ['--conditions=source', counterWorkerScript, redisUrl, queueName, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  return watchWorker(child);
}

/** Collects a spawned worker's stdout lines. */
export function watchWorker(child: ChildProcess): WorkerProcess {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      const found = lines.find((line) => pattern.test(line));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no log line matching ${pattern} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(signal === 'SIGTERM' ? child.pid : -child.pid, signal);
        } catch {
          // already gone
        }
      }
    },
  };
}
