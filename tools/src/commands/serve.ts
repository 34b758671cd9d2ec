import { ConfigError } from '@harness-s/core';
import { startAppWorldServer } from '@harness-s/env-appworld';
import { listenForInterrupts } from '../interrupts.js';

export interface ServeFlags {
  port: number;
  host: string;
}

/**
 * `harness-s serve appworld`: the embedded AppWorld world behind AppWorld's environment-server
 * routes, one task at a time (start several on several ports for parallel episodes). Runs until
 * interrupted.
 */
export async function runServe(what: string, flags: ServeFlags): Promise<void> {
  if (what !== 'appworld')
    throw new ConfigError(`harness-s serve: unknown service '${what}'; available: appworld`, { code: 'bad-flag' });
  const server = await startAppWorldServer({ port: flags.port, host: flags.host });
  process.stderr.write(`AppWorld environment server (embedded world, JavaScript code) listening on ${server.url}\n`);
  const interrupts = listenForInterrupts();
  await new Promise((resolve) => interrupts.signal.addEventListener('abort', resolve, { once: true }));
  await interrupts.releaseAfter(() => server.close());
}
