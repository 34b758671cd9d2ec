import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  if (typeof pid === 'number' && (processAlive(pid) || groupAlive(pid)))
    throw new ConfigError(
      `the --on-batch command of the stopped run (pid ${pid}, step ${step}) is still running, and may still hand step ${step} over: wait for it to end, or stop it with every process it started (kill -- -${pid}), then resume; if pid ${pid} is not that command any more, remove ${path}`,
      { code: 'on-batch-running' },
    );
  await rm(path, { force: true });
}

/**
 * Whether a process of the group a hook led is alive: the shell may be gone while a command it
 * started (in the same group) still hands the batch over. Killed processes nobody has reaped yet
 * (zombies) do not count: on Linux the group's members are read from /proc.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return true;
  }
  return entries.some((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command's closing parenthesis: state, parent pid, process group.
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(group) === pgid && state !== 'Z';
    } catch {
      return false;
    }
  });
}

/** How long a timed-out hook has between SIGTERM and SIGKILL. */
const killGraceMs = 10_000;

/** Signals the process group a hook leads (it may be gone already). */
const stopGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
};

/**
 * Runs `--on-batch COMMAND` in a shell after a step's batch is written; its output goes to stderr,
 * and a failure stops the run (which resumes from its last checkpoint). While it runs, its pid is
 * noted in the run folder (see `checkStrayHook`). With `timeoutMs`, a hook still running then is
 * stopped (SIGTERM, SIGKILL after 10 s) and the run stops as for a failure.
 */
export function batchHook(
  command: string,
  dir: string,
  log: (line: string) => void,
  signal: AbortSignal,
  timeoutMs?: number,
) {
  return ({ path, step, examples }: { path: string; step: number; examples: number }) =>
    new Promise<void>((done, fail) => {
      log(`step ${step}: ${examples} examples in ${path}; running --on-batch`);
      // A process group of its own: an interrupt of the run leaves the hand-over to finish (the run
      // waits for it), and a timeout stops the command with every process it started.
      const child = spawn(command, {
        shell: true,
        detached: true,
        stdio: ['ignore', 2, 2],
        env: { ...process.env, HARNESS_S_BATCH: path, HARNESS_S_STEP: String(step), HARNESS_S_RUN: dir },
      });
      const noted = writeJsonAtomic(hookFile(dir), { pid: child.pid, step, command, since: new Date().toISOString() });
      const waiting = () =>
        log(`waiting for --on-batch (pid ${child.pid}) to end; Ctrl-C again exits at once and leaves it running`);
      signal.addEventListener('abort', waiting, { once: true });
      let timedOut = false;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              log(`--on-batch (pid ${child.pid}) still runs after ${timeoutMs / 1000} s at step ${step}: stopping it`);
              stopGroup(child.pid, 'SIGTERM');
              // Due even once the shell has ended: what it started may outlive it.
              setTimeout(() => stopGroup(child.pid, 'SIGKILL'), killGraceMs).unref();
            }, timeoutMs);
      child.on('error', fail);
      child.on('exit', async (code, killedBy) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', waiting);
        await noted.catch(() => undefined);
        await rm(hookFile(dir), { force: true });
        if (code === 0 && !timedOut) return done();
        const how = timedOut
          ? `did not end within --on-batch-timeout ${timeoutMs === undefined ? '' : timeoutMs / 1000} s and was stopped`
          : killedBy
            ? `was killed by ${killedBy}`
            : `exited with code ${code}`;
        fail(
          new ConfigError(
            `--on-batch ${JSON.stringify(command)} ${how} at step ${step}${timedOut ? '' : ' (its output, if any, is above)'}; once its cause is fixed, the run continues from its last checkpoint with --resume ${dir}, which samples step ${step} again and hands it over`,
            { code: timedOut ? 'on-batch-timeout' : 'on-batch-failed' },
          ),
        );
      });
    });
}
