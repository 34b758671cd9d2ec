import { ConfigError } from '@harness-s/core';
import { type CleanupFlags, environmentEntry, environmentNames, findEnvironment } from '../environments.js';

export type { CleanupFlags };

/**
 * `harness-s cleanup`: removes what runs killed before they could clean up left behind, in one
 * environment (`--env`) or, without it, in every environment that has a cleanup; one that needs a
 * flag not given (DBBench's `--db`) is skipped, saying which.
 */
export async function runCleanup(
  flags: Omit<CleanupFlags, 'env'> & { env?: string },
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<string[]> {
  if (flags.env === undefined) {
    const lines: string[] = [];
    for (const name of environmentNames()) {
      const cleanup = findEnvironment(name)?.cleanup;
      if (!cleanup) continue;
      let found: string[];
      try {
        found = await cleanup({ ...flags, env: name });
      } catch (error) {
        // Only a cleanup that needs a flag not given is skipped; any other error is one.
        if (!(error instanceof ConfigError) || error.code !== 'missing-cleanup-flag') throw error;
        found = [`skipped: ${error.message}`];
      }
      for (const line of found) {
        lines.push(`${name}: ${line}`);
        print(`${name}: ${line}`);
      }
    }
    return lines;
  }
  const cleanup = findEnvironment(flags.env)?.cleanup;
  if (!cleanup) {
    const cleanable = environmentNames().filter((name) => findEnvironment(name)?.cleanup);
    // An unknown name is refused as every command refuses it; a known one has nothing to clean, which
    // is no error (a script cleaning after each environment it ran goes on).
    environmentEntry(flags.env);
    const line = `nothing to clean: ${flags.env} leaves nothing behind (environments with a cleanup: ${cleanable.join(', ')})`;
    print(line);
    return [line];
  }
  const lines = await cleanup({ ...flags, env: flags.env });
  for (const line of lines) print(line);
  return lines;
}
