import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, InputError, runLockFile } from '@harness-s/core';

/**
 * Errors whose folder stays: an interrupted run continues with `--resume`; a folder refused as
 * another run's (or locked by another process) is not this run's to take away.
 */
const keptOn = ['interrupted', 'run-exists', 'run-locked'];

/** What a run writes before its first attempt: its settings, and train's copy of a task file. */
const setupOnly = (path: string) => path === 'config.json' || path.startsWith('split/');

/** Whether a run folder holds nothing but its setup and empty files (no attempt, metric or checkpoint). */
async function recordsNothing(dir: string, under = ''): Promise<boolean> {
  for (const entry of await readdir(join(dir, under), { withFileTypes: true })) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!(await recordsNothing(dir, path))) return false;
    } else if (!setupOnly(path) && (await stat(join(dir, path))).size > 0) return false;
  }
  return true;
}

/**
 * Where a new run goes, and what a failed start leaves of it. `discard` takes the folder away again
 * when this start made it and failed before the run recorded its settings (a copied task file is
 * all there is), or when the run stopped on a setup mistake (a `ConfigError` or `InputError`, such
 * as a model name the server refuses at the first request) before recording any attempt, metric or
 * checkpoint: the same `--out` then takes the corrected command. A folder with recorded work, a
 * resumed run, an interrupted one (its message says to continue it with `--resume`) and one another
 * process holds are kept.
 */
export function newRunFolder(dir: string, resumed: boolean) {
  const existed = existsSync(dir);
  return {
    /** The error to report: the given one, saying so when its run's folder was taken away. */
    async discard(error: unknown): Promise<unknown> {
      if (resumed || !existsSync(dir)) return error;
      if (!existsSync(join(dir, 'config.json'))) {
        if (!existed) await rm(dir, { recursive: true, force: true });
        return error;
      }
      const mistake = ConfigError.isInstance(error) || InputError.isInstance(error);
      if (!mistake || keptOn.includes(error.code)) return error;
      // The run has let its folder go by now: a lock there is another process's.
      if (existsSync(join(dir, runLockFile)) || !(await recordsNothing(dir))) return error;
      if (existed) {
        // The user's empty folder stays; only what the run wrote goes.
        for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
      } else {
        await rm(dir, { recursive: true, force: true });
      }
      const Same = ConfigError.isInstance(error) ? ConfigError : InputError;
      return new Same(
        `${error.message} (the run recorded nothing, so ${existed ? `what it wrote in ${dir} was` : `${dir} was`} removed: --out may name it again)`,
        {
          code: error.code,
          cause: error,
        },
      );
    },
  };
}
