import { InfrastructureError, rightPath } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppWorldEnvironment, createAppWorldEnvironment } from './environment.js';
import { runActions } from './plan-runner.js';
import { createAppWorldRemoteEnvironment } from './remote.js';
import { SandboxWorkerPool } from './sandbox/worker-pool.js';
import { type AppWorldServer, startAppWorldServer } from './server.js';
import type { AppWorldTask } from './tasks/types.js';

const pool = new SandboxWorkerPool(2);
let embedded: AppWorldEnvironment;
let servers: AppWorldServer[] = [];

beforeAll(async () => {
  embedded = createAppWorldEnvironment({ pool });
  // Two real servers of ours over HTTP, on ports the system picks.
  servers = await Promise.all([
    startAppWorldServer({ environment: embedded }),
    startAppWorldServer({ environment: embedded }),
  ]);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await embedded.close();
});

const post = async (url: string, route: string, body: unknown) => {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('the AppWorld server protocol', () => {
  it('answers routes as AppWorld does: wrapped outputs, 400 before /initialize or for another task', async () => {
    const [server] = servers;
    const url = server?.url ?? '';
    const task = embedded.world.tasks[0]?.task as AppWorldTask;
    expect(await post(url, '/execute', { task_id: task.id, code: 'print(1)' })).toEqual({
      status: 400,
      body: { detail: 'No task is initialized. Call /initialize first.' },
    });
    const initialized = await post(url, '/initialize', { task_id: task.id, experiment_name: 'test', random_seed: 100 });
    expect(initialized.body['output']).toMatchObject({
      task_id: task.id,
      supervisor: task.supervisor,
      datetime: task.datetime,
    });
    expect(task.instruction).toContain(String((initialized.body['output'] as { instruction: string }).instruction));
    expect((await post(url, '/execute', { task_id: 'other_1', code: 'print(1)' })).status).toBe(400);
    expect(await post(url, '/execute', { task_id: task.id, code: "print('hello')" })).toEqual({
      status: 200,
      body: { output: 'hello' },
    });
    const batch = await post(url, '/batch_execute', {
      task_id: task.id,
      codes: ['var x = 2;', 'print(x * 21)', 'null.y'],
    });
    expect((batch.body['output'] as string[]).slice(0, 2)).toEqual(['Execution successful.', '42']);
    expect((batch.body['output'] as string[])[2]).toMatch(/^Execution failed\. Traceback:/);
    expect((await post(url, '/task_completed', { task_id: task.id })).body).toEqual({ output: false });
    const report = (await post(url, '/evaluate', { task_id: task.id, suppress_errors: true, report: false })).body[
      'output'
    ] as Record<string, unknown>;
    expect(report).toMatchObject({ success: false, difficulty: task.difficulty });
    expect(report['num_tests']).toBe((report['passes'] as unknown[]).length + (report['failures'] as unknown[]).length);
    expect(await post(url, '/close', { task_id: task.id })).toEqual({ status: 200, body: { output: null } });
    expect((await post(url, '/evaluate', { task_id: task.id })).status).toBe(400);
    const docs = (await (await fetch(`${url}/api_docs`)).json()) as Record<
      string,
      Record<string, { api_name: string }>
    >;
    expect(docs['music']?.['login']?.api_name).toBe('login');
  });
});

describe('the remote client against our server over HTTP', () => {
  it('solves tasks with the oracle and none with the empty plan, two servers serving three parallel episodes', async () => {
    const remote = createAppWorldRemoteEnvironment({ urls: servers.map((server) => server.url) });
    const { tasks, unloadable } = await remote.loadTasks({ split: 'test' });
    expect(unloadable).toEqual([]);
    const local = embedded.world.tasks.filter((item) => item.task.split === 'test').map((item) => item.task);
    expect(tasks.map((task) => task.id)).toEqual(local.map((task) => task.id));
    // Instructions arrive intact through the protocol.
    expect(tasks.map((task) => task.instruction)).toEqual(local.map((task) => task.instruction));
    // The same plans, hardness included: the simulated policy meets the same tasks either way.
    expect(tasks.map((task) => remote.oraclePlan(task))).toEqual(local.map((task) => embedded.oraclePlan(task)));
    expect(tasks.some((task) => JSON.stringify(remote.oraclePlan(task)).includes('"hardness"'))).toBe(true);
    const sample = [tasks[0], tasks[4], tasks[8]] as AppWorldTask[];
    const oracle = await Promise.all(
      sample.map((task) => runActions(remote, task, rightPath(remote.oraclePlan(task).nodes))),
    );
    expect(oracle.map((run) => run.evaluation.success)).toEqual([true, true, true]);
    expect(oracle[0]?.evaluation.checks.length).toBeGreaterThan(1);
    const empty = await runActions(
      remote,
      sample[0] as AppWorldTask,
      rightPath(remote.emptyPlan(sample[0] as AppWorldTask).nodes),
    );
    expect(empty.results.at(-1)?.done).toBe(true);
    expect(empty.evaluation.success).toBe(false);
  });

  it('reports an unreachable server as an infrastructure error, and tasks without a plan as a config error', async () => {
    const remote = createAppWorldRemoteEnvironment({ urls: ['http://127.0.0.1:9'], timeoutMs: 2_000 });
    const task = { ...(embedded.world.tasks[0]?.task as AppWorldTask) };
    const error = await remote.open(task).catch((caught: unknown) => caught);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect(() => remote.oraclePlan({ ...task, id: 'abcdef0_1', codeLanguage: 'python' })).toThrow(/no oracle plan/);
  });

  it('tells the agent when the server refuses its code block for its size, and the episode goes on', async () => {
    const small = await startAppWorldServer({ environment: embedded, maxBodyBytes: 4096 });
    try {
      const remote = createAppWorldRemoteEnvironment({ urls: [small.url] });
      const [task] = (await remote.loadTasks({ split: 'test' })).tasks as AppWorldTask[];
      const episode = await remote.open(task as AppWorldTask);
      try {
        const refused = await episode.step({ tool: 'execute', arguments: { code: `x = "${'a'.repeat(10_000)}"` } });
        expect(refused.error?.kind).toBe('bad-arguments');
        expect(refused.observation).toMatch(/the code block is too large for the AppWorld server \(10006 characters\)/);
        const next = await episode.step({ tool: 'execute', arguments: { code: 'print(1 + 1)' } });
        expect(next.observation).toContain('2');
      } finally {
        await episode.close();
      }
    } finally {
      await small.close();
    }
  });
});
