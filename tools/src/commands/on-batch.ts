import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, processAlive, readJson, writeJsonAtomic } from '@harness-s/core';

/** Where a run notes the `--on-batch` command it is running: a killed run's may outlive it. */
const hookFile = (dir: string) => join(dir, 'batches', 'on-batch.json');

/**
 * Refuses to continue a run whose killed predecessor's `--on-batch` still runs: it could hand its
 * step over after the continued run has handed the same step over anew, and replace that update.
 */
export async function checkStrayHook(dir: string): Promise<void> {
  const path = hookFile(dir);
  if (!existsSync(path)) return;
  const { pid, step } = (await readJson(path)) as { pid?: number; step?: number };
  if (typeof pid === 'number' && processAlive(pid))
    throw new ConfigError(
      `the --on-batch command of the stopped run (pid ${pid}, step ${step}) is still running, and may still hand step ${step} over: wait for it to end, or stop it (kill ${pid}), then resume; if pid ${pid} is not that command any more, remove ${path}`,
      { code: 'on-batch-running' },
    );
  await rm(path, { force: true });
}

/**
 * Runs `--on-batch COMMAND` in a shell after a step's batch is written; its output goes to stderr,
 * and a failure stops the run (which resumes from its last checkpoint). While it runs, its pid is
 * noted in the run folder (see `checkStrayHook`).
 */
export function batchHook(command: string, dir: string, log: (line: string) => void, signal: AbortSignal) {
  return ({ path, step, examples }: { path: string; step: number; examples: number }) =>
    new Promise<void>((done, fail) => {
      log(`step ${step}: ${examples} examples in ${path}; running --on-batch`);
      const child = spawn(command, {
        shell: true,
        stdio: ['ignore', 2, 2],
        env: { ...process.env, HARNESS_S_BATCH: path, HARNESS_S_STEP: String(step), HARNESS_S_RUN: dir },
      });
      const noted = writeJsonAtomic(hookFile(dir), { pid: child.pid, step, command, since: new Date().toISOString() });
      const waiting = () =>
        log(`waiting for --on-batch (pid ${child.pid}) to end; Ctrl-C again exits at once and leaves it running`);
      signal.addEventListener('abort', waiting, { once: true });
      child.on('error', fail);
      child.on('exit', async (code, killedBy) => {
        signal.removeEventListener('abort', waiting);
        await noted.catch(() => undefined);
        await rm(hookFile(dir), { force: true });
        if (code === 0) return done();
        fail(
          new ConfigError(
            `--on-batch ${JSON.stringify(command)} ${killedBy ? `was killed by ${killedBy}` : `exited with code ${code}`} at step ${step}; the run continues from its last checkpoint with --resume ${dir}`,
            { code: 'on-batch-failed' },
          ),
        );
      });
    });
}
