import { ConfigError } from '@harness-s/core';
import { type CleanupFlags, environmentEntry, environmentNames, findEnvironment } from '../environments.js';

export type { CleanupFlags };

/** `harness-s cleanup`: removes what runs killed before they could clean up left behind. */
export async function runCleanup(
  flags: CleanupFlags,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<string[]> {
  const cleanup = findEnvironment(flags.env)?.cleanup;
  if (!cleanup) {
    const cleanable = environmentNames().filter((name) => findEnvironment(name)?.cleanup);
    // An unknown name is refused as every command refuses it; a known one has nothing to clean.
    environmentEntry(flags.env);
    throw new ConfigError(
      `cleanup: ${flags.env} leaves nothing behind to clean; environments with a cleanup: ${cleanable.join(', ')}`,
      { code: 'nothing-to-clean' },
    );
  }
  const lines = await cleanup(flags);
  for (const line of lines) print(line);
  return lines;
}
