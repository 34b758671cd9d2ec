import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, type Harness, policySnapshotFile } from '@harness-s/core';
import { startAppWorldServer } from '@harness-s/env-appworld';
import { SimulatedPolicy } from '@harness-s/policy';
import { resolveBase } from '../base-harness.js';
import { createEnvironment, environmentNames } from '../environments.js';
import { listenForInterrupts } from '../interrupts.js';
import { checkCheckpointFlags, simulatedSettings, trainedPolicy } from '../policies.js';
import { loadPoolHarnesses } from '../pool.js';
import { servedModelName, startSimulatedModelServer } from '../sim-server/server.js';
import { SimulatedModelWorld } from '../sim-server/world.js';

export interface ServeFlags {
  port?: number;
  host: string;
  env?: string;
  pool?: string;
  base?: string;
  simConfig?: string;
  simLocality?: number;
  checkpoint?: string;
  seed: number;
  out?: string;
  /** appworld: the largest request body it reads, in MiB. */
  maxBodyMb?: number;
}

const services = ['appworld', 'sim'];

/**
 * `harness-s serve appworld`: the embedded AppWorld world behind AppWorld's environment-server
 * routes, one task at a time (start several on several ports for parallel episodes).
 * `harness-s serve sim`: the simulated policy behind an OpenAI-compatible endpoint that learns
 * from the batches a run hands over. Both run until interrupted.
 */
export async function runServe(what: string, flags: ServeFlags): Promise<void> {
  if (!services.includes(what))
    throw new ConfigError(`harness-s serve: unknown service '${what}'; available: ${services.join(', ')}`, {
      code: 'bad-flag',
    });
  const interrupts = listenForInterrupts();
  if (what === 'appworld') {
    const simOnly = (['env', 'pool', 'base', 'simConfig', 'simLocality', 'checkpoint', 'out'] as const).filter(
      (key) => flags[key] !== undefined,
    );
    if (simOnly.length > 0)
      throw new ConfigError(
        `serve appworld takes --port, --host and --max-body-mb; ${simOnly.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} ${simOnly.length === 1 ? 'is' : 'are'} for serve sim`,
        { code: 'bad-flag' },
      );
    const server = await startAppWorldServer({
      port: flags.port ?? 8000,
      host: flags.host,
      ...(flags.maxBodyMb === undefined ? {} : { maxBodyBytes: flags.maxBodyMb * 1024 ** 2 }),
    });
    process.stderr.write(`AppWorld environment server (embedded world, JavaScript code) listening on ${server.url}\n`);
    await new Promise((resolve) => interrupts.signal.addEventListener('abort', resolve, { once: true }));
    await interrupts.releaseAfter(() => server.close());
    return;
  }
  if (flags.maxBodyMb !== undefined) throw new ConfigError('--max-body-mb is for serve appworld', { code: 'bad-flag' });
  checkCheckpointFlags({ policy: 'sim', ...flags });
  const env = flags.env ?? 'dbbench';
  if (!environmentNames().includes(env))
    throw new ConfigError(`--env ${env}: no such environment; available: ${environmentNames().join(', ')}`, {
      code: 'bad-flag',
    });
  const environment = createEnvironment(env);
  try {
    const pool: Harness[] = flags.pool ? await loadPoolHarnesses(flags.pool, env) : [];
    const h0 = await resolveBase(env, flags.base, pool);
    const world = await SimulatedModelWorld.open(environment, pool, h0);
    const dir = resolve(flags.out ?? join('runs', `served-sim-${env}-${Date.now()}`));
    const continuing = existsSync(join(dir, policySnapshotFile(0)));
    if (continuing && (flags.checkpoint || flags.simConfig !== undefined || flags.simLocality !== undefined))
      throw new ConfigError(
        `--out ${flags.out}: it holds a served model's parameters, which a server started on it continues from; leave out --checkpoint, --sim-config and --sim-locality, or give a new folder`,
        { code: 'bad-flag' },
      );
    const policy = flags.checkpoint
      ? await trainedPolicy(flags.checkpoint, env)
      : new SimulatedPolicy(await simulatedSettings(flags));
    const server = await startSimulatedModelServer({
      world,
      policy,
      host: flags.host,
      port: flags.port ?? 8100,
      seed: flags.seed,
      dir,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    const update = `curl -sS --fail-with-body --data-binary @"$HARNESS_S_BATCH" -H "X-Harness-S-Run: $HARNESS_S_RUN" "${server.url}/sim/update?step=$HARNESS_S_STEP"`;
    process.stderr.write(
      [
        `Simulated model '${servedModelName}' (a simulation, not a language model) on ${env}: ${world.taskCount} tasks, ${world.harnesses.length} harnesses (H0 ${h0.spec.id}${flags.pool ? `, the pool in ${flags.pool}` : ''})`,
        `listening on ${server.url}`,
        `${continuing ? 'Continuing from' : 'Parameters in'} ${dir} (each update as checkpoints/policy-step-N.json; eval --checkpoint ${dir} evaluates the last, serve sim --out ${dir} continues from them)`,
        'Train against it, with the batches handed back to it:',
        `  harness-s train --env ${env}${flags.pool ? ` --pool ${resolve(flags.pool)}` : ' --method grpo'} --policy openai --model ${servedModelName} --base-url ${server.url} \\`,
        `    --on-batch '${update}' ...`,
        '',
      ].join('\n'),
    );
    await new Promise((resolve) => interrupts.signal.addEventListener('abort', resolve, { once: true }));
    await interrupts.releaseAfter(() => server.close());
  } finally {
    await environment.close();
  }
}
