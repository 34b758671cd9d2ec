import { type Environment, evaluate } from '@harness-s/core';
import { probeAppWorldServer } from '@harness-s/env-appworld';
import { resolveHarness } from '@harness-s/harness-dsh';
import { createOraclePolicy } from '@harness-s/policy';
import { createEnvironment, defaultSplit, type EnvironmentOptions } from '../environments.js';

/**
 * Checks each AppWorld server: this project's runs the oracle on the embedded world's first task;
 * AppWorld's own (Python) initializes a task of its dataset and runs a line of code, since the
 * oracle knows only the embedded world.
 */
export async function appworldServers(
  urls: readonly string[],
  taskId: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  const details: string[] = [];
  for (const url of urls) {
    const probe = await probeAppWorldServer(url, undefined, taskId).catch((error: unknown) => {
      // AppWorld's own server checks on one task of its dataset, which its data may lack.
      // A 4xx answer to /initialize: the server does not have that task.
      const code = (error as { code?: unknown }).code;
      if (
        error instanceof Error &&
        typeof code === 'string' &&
        /^appworld-http-4\d\d$/.test(code) &&
        /\/initialize answered/.test(error.message)
      )
        error.message += `; check on a task the server has with --appworld-task ID`;
      throw error;
    });
    const detail =
      probe.language === 'javascript'
        ? await oracleEpisode('appworld', { appworldUrl: [url] }, signal)
        : `${probe.detail} (its tasks need a Python harness: --harness or --base h0-python or h0-python-tools)`;
    details.push(urls.length > 1 ? `${url}: ${detail}` : detail);
  }
  return details.join('; ');
}

/**
 * Runs the oracle on an environment's first task, as a real run would: loading, opening an episode,
 * acting, scoring and closing. Its detail says which task it solved.
 */
export async function oracleEpisode(env: string, options: EnvironmentOptions, signal: AbortSignal): Promise<string> {
  const environment: Environment = createEnvironment(env, { ...options, actionsFrom: 'plan' });
  try {
    const split = defaultSplit(environment);
    const { tasks, unloadable } = await environment.loadTasks({ split });
    const task = tasks[0];
    if (!task)
      throw new Error(`no loadable task in split ${split}${unloadable[0] ? ` (${unloadable[0].reason})` : ''}`);
    const { summary, trajectories } = await evaluate({
      environment,
      taskSet: { tasks: [task], unloadable: [] },
      split,
      harness: await resolveHarness(env, 'h0'),
      policy: createOraclePolicy(),
      k: 1,
      seed: 0,
      concurrency: 1,
      runId: 'doctor',
      maxInfraRetries: 0,
      signal,
    });
    const failure = trajectories[0]?.infraErrors.at(-1)?.message;
    if (!trajectories[0]?.evaluation && failure) throw new Error(failure);
    if (summary.solved !== 1) throw new Error(`the oracle did not solve ${task.id}: the environment scores it wrong`);
    return `the oracle solved ${task.id} (${split})`;
  } finally {
    await environment.close();
  }
}
