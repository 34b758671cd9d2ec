import { type Environment, evaluate, InfrastructureError, type Policy, rightPath } from '@harness-s/core';
import { callTool, createPlainHarness } from '@harness-s/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { closeMysql, connectMysql, runMysql } from './mysql-client.js';
import { connectPostgres } from './postgres-client.js';
import type { DbbenchTask } from './records.js';

const servers = await testServers();

/** Plays the oracle plan's right path, one action per turn. */
const oraclePolicy: Policy = {
  id: 'oracle-test',
  version: '1',
  needsPlan: 'oracle',
  describe: () => ({}),
  startEpisode(context) {
    const actions = rightPath(context.plan?.nodes ?? []);
    let next = 0;
    return {
      async respond() {
        const action = actions[Math.min(next, actions.length - 1)];
        next += 1;
        if (!action) throw new Error('the plan has no actions');
        return { message: callTool(action.tool, action.arguments), usage: { promptTokens: 0, completionTokens: 0 } };
      },
    };
  },
};

for (const server of servers) {
  const mysql = server.name === 'MariaDB';
  describe.skipIf(!server.available)(`DBBench on ${server.name}: lost connections`, () => {
    let backend: DbbenchBackend;
    let tasks: DbbenchTask[] = [];
    const task = (id: string) => tasks.find((item) => item.id === id) as DbbenchTask;

    beforeAll(async () => {
      backend = createBackendFromUrl(server.url);
      ({ tasks } = await createDbbenchEnvironment({ backend }).loadTasks({ split: 'dev' }));
    });
    afterAll(() => backend?.close());

    /** Kills a server connection by its id from outside, as an operator would. */
    async function killConnection(id: string): Promise<void> {
      if (mysql) {
        const admin = await connectMysql({ url: server.url, connectTimeoutMs: 5000 });
        await runMysql(admin, `KILL ${Number(id)}`);
        await closeMysql(admin);
      } else {
        const admin = await connectPostgres({ url: server.url, applicationName: 'test', connectTimeoutMs: 5000 });
        await admin.query('SELECT pg_terminate_backend($1)', [Number(id)]);
        await admin.end();
      }
    }
    const connectionIdSql = mysql ? 'SELECT CONNECTION_ID()' : 'SELECT pg_backend_pid()';

    it('turns a connection killed mid-episode into an InfrastructureError, and the backend goes on', async () => {
      const session = await backend.openSession(task('dev-2'));
      const id = await session.execute(connectionIdSql);
      if (!id.ok) throw new Error(id.message);
      await killConnection(String(id.rows[0]?.[0]));
      const error = await session.execute('SELECT 1').catch((caught: unknown) => caught);
      expect(InfrastructureError.isInstance(error)).toBe(true);
      expect((error as InfrastructureError).code).toBe('db-connection-lost');
      await session.close();
      expect(backend.sessionsInUse()).toBe(0);
      const next = await backend.openSession(task('dev-2'));
      try {
        const count = await next.execute(
          `SELECT COUNT(*) FROM ${mysql ? '`Music Chart History`' : '"Music Chart History"'}`,
        );
        expect(count.ok && String(count.rows[0]?.[0])).toBe('35');
      } finally {
        await next.close();
      }
    });

    it("turns a connection an operator kills while the agent's statement runs into an InfrastructureError", async () => {
      const session = await backend.openSession(task('dev-2'));
      const id = await session.execute(connectionIdSql);
      if (!id.ok) throw new Error(id.message);
      const running = session
        .execute(mysql ? 'SELECT SLEEP(20)' : 'SELECT pg_sleep(20)')
        .catch((caught: unknown) => caught);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const started = performance.now();
      await killConnection(String(id.rows[0]?.[0]));
      const error = await running;
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(InfrastructureError.isInstance(error)).toBe(true);
      expect((error as InfrastructureError).code).toBe('db-connection-lost');
      await session.close();
      expect(backend.sessionsInUse()).toBe(0);
      const next = await backend.openSession(task('dev-2'));
      try {
        const count = await next.execute(
          `SELECT COUNT(*) FROM ${mysql ? '`Music Chart History`' : '"Music Chart History"'}`,
        );
        expect(count.ok && String(count.rows[0]?.[0])).toBe('35');
      } finally {
        await next.close();
      }
    });

    it('retries the attempt whose connection was killed; the run completes with the retry recorded', async () => {
      const inner = createDbbenchEnvironment({ backend });
      let killed = false;
      const environment: Environment<DbbenchTask> = {
        ...inner,
        async open(target, options) {
          const episode = await inner.open(target, options);
          if (killed || target.id !== 'dev-20') return episode;
          killed = true;
          const id = await episode.step({ tool: 'execute_sql', arguments: { query: connectionIdSql } });
          await killConnection(/\d+/.exec(id.observation)?.[0] ?? '0');
          return episode;
        },
      };
      const { summary, trajectories } = await evaluate({
        environment,
        taskSet: { tasks: [task('dev-2'), task('dev-20')], unloadable: [] },
        split: 'dev',
        harness: createPlainHarness({ maxSteps: 20 }),
        policy: oraclePolicy,
        k: 2,
        seed: 1,
        concurrency: 2,
        runId: 'faults',
      });
      expect(killed).toBe(true);
      expect(summary.solved).toBe(2);
      expect(summary.avgAtK).toBe(1);
      const retried = trajectories.filter((trajectory) => trajectory.infraErrors.length > 0);
      expect(retried).toHaveLength(1);
      expect(retried[0]?.taskId).toBe('dev-20');
      expect(retried[0]?.infraErrors[0]?.code).toBe('db-connection-lost');
      expect(retried[0]?.evaluation?.success).toBe(true);
      expect(backend.sessionsInUse()).toBe(0);
    });
  });
}
