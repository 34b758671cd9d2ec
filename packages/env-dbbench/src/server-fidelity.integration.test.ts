import { rightPath } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import { goldSql } from './oracle-plan.js';
import { formatPythonRows } from './python-text.js';
import type { DbbenchTask } from './records.js';
import { tableHash, tableHashSql } from './table-hash.js';

const servers = await testServers();

for (const server of servers) {
  describe.skipIf(!server.available)(`DBBench on ${server.name}: AgentBench fidelity`, () => {
    let backend: DbbenchBackend;
    let tasks: DbbenchTask[] = [];
    const environment = () => createDbbenchEnvironment({ backend });

    beforeAll(async () => {
      backend = createBackendFromUrl(server.url);
      ({ tasks } = await environment().loadTasks({ split: 'dev' }));
    });
    afterAll(() => backend?.close());

    /** Runs statements on a fresh episode of `task`; returns their observations and the table rows. */
    async function run(task: DbbenchTask, statements: string[]) {
      const session = await backend.openSession(task);
      try {
        const observations: string[] = [];
        for (const statement of statements) observations.push(observationText(await session.execute(statement)));
        const table = await session.readTable();
        if ('error' in table) throw new Error(`${task.id}: ${table.error}`);
        return { observations, rows: table.rows };
      } finally {
        await session.close();
      }
    }

    it('reproduces answer_md5 of every write task with the gold SQL, hashed on the server and in code', async () => {
      const writes = tasks.filter((task) => task.kind === 'write');
      expect(writes).toHaveLength(40);
      const mismatches: string[] = [];
      for (const task of writes) {
        const hashQuery = tableHashSql(backend.dialect, task.tableName, task.columns);
        const { observations, rows } = await run(task, [goldSql(task, backend.dialect), hashQuery]);
        const [gold, onServer] = observations;
        if (gold !== '[]') mismatches.push(`${task.id}: gold SQL gave ${gold}`);
        if (onServer !== task.answerMd5) mismatches.push(`${task.id}: server hash ${onServer}`);
        if (formatPythonRows([[tableHash(rows)]]) !== task.answerMd5) mismatches.push(`${task.id}: code hash`);
      }
      expect(mismatches).toEqual([]);
    });

    it("hashes every loadable table as AgentBench's MySQL does", async () => {
      const mismatches: string[] = [];
      for (const task of tasks) {
        const { observations } = await run(task, [tableHashSql(backend.dialect, task.tableName, task.columns)]);
        const expected = formatPythonRows([[tableHash(task.rows)]]);
        if (observations[0] !== expected) mismatches.push(`${task.id}: ${observations[0]} != ${expected}`);
      }
      expect(mismatches).toEqual([]);
    });

    it('solves every loadable dev task with the oracle, eight episodes at a time', async () => {
      const env = environment();
      const failures: string[] = [];
      for (let start = 0; start < tasks.length; start += 8) {
        await Promise.all(
          tasks.slice(start, start + 8).map(async (task) => {
            const episode = await env.open(task);
            try {
              for (const action of rightPath(env.oraclePlan(task).nodes)) if ((await episode.step(action)).done) break;
              const evaluation = await episode.evaluate();
              if (!evaluation.success) failures.push(`${task.id}: ${JSON.stringify(evaluation.checks)}`);
            } finally {
              await episode.close();
            }
          }),
        );
      }
      expect(failures).toEqual([]);
      expect(backend.sessionsInUse()).toBe(0);
    });

    it("prints values as AgentBench's Python driver does", async () => {
      const task = tasks.find((item) => item.id === 'dev-2') as DbbenchTask;
      const query =
        backend.dialect === 'mysql'
          ? "SELECT COUNT(*), 1.50, CAST(2.5 AS DOUBLE), SUM('1.5'), NULL, 'it''s', CAST('2020-01-02' AS DATE), CAST('2020-01-02 03:04:05.000006' AS DATETIME(6)), CAST('-01:00:00' AS TIME) FROM `Music Chart History`"
          : "SELECT COUNT(*), 1.50, 2.5::float8, SUM('1.5'::text), NULL, 'it''s', DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05.000006', TIME '01:00:00' FROM \"Music Chart History\"";
      const time =
        backend.dialect === 'mysql' ? 'datetime.timedelta(days=-1, seconds=82800)' : 'datetime.timedelta(seconds=3600)';
      const { observations } = await run(task, [query]);
      expect(observations[0]).toBe(
        `[(35, Decimal('1.50'), 2.5, 52.5, None, "it's", datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5, 6), ${time})]`,
      );
    });
  });
}
