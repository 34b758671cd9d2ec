import { describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { closeMysql, connectMysql, runMysql } from './mysql-client.js';
import { namePattern, newRunId } from './naming.js';
import { connectPostgres } from './postgres-client.js';
import type { DbbenchTask } from './records.js';

const servers = await testServers();

/**
 * What the episode leaves behind on purpose: a table, a view, a function and (PostgreSQL; MySQL refuses
 * them) a temporary table.
 */
const litter = {
  mysql: [
    'CREATE TABLE hs_extra (a TEXT)',
    'CREATE VIEW hs_view AS SELECT 1 AS a',
    'CREATE FUNCTION hs_function() RETURNS INT DETERMINISTIC RETURN 1',
  ],
  postgres: [
    'CREATE TABLE hs_extra (a TEXT)',
    'CREATE VIEW hs_view AS SELECT 1 AS a',
    'CREATE FUNCTION hs_function() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
    'CREATE TEMPORARY TABLE hs_temporary (a TEXT)',
    'PREPARE hs_prepared AS SELECT 1',
  ],
};

for (const server of servers) {
  const mysql = server.name === 'MariaDB';
  describe.skipIf(!server.available)(`DBBench on ${server.name}: nothing leaks`, () => {
    /** Every object of the run on the server, and its open connections. */
    async function runObjects(runId: string): Promise<{ objects: string[]; connections: number; tables: string[] }> {
      const pattern = namePattern(runId);
      if (mysql) {
        const admin = await connectMysql({ url: server.url, connectTimeoutMs: 5000 });
        try {
          const databases = await runMysql<Array<{ name: string }>>(
            admin,
            'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
            [pattern],
          );
          const users = await runMysql<Array<{ name: string }>>(
            admin,
            'SELECT User AS name FROM mysql.user WHERE User LIKE ?',
            [pattern],
          );
          const connections = await runMysql<Array<{ n: number }>>(
            admin,
            'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER LIKE ?',
            [pattern],
          );
          const tables = await runMysql<Array<{ name: string }>>(
            admin,
            `SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE ?
             UNION ALL SELECT CONCAT(ROUTINE_SCHEMA, '.', ROUTINE_NAME) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA LIKE ?`,
            [pattern, pattern],
          );
          return {
            objects: [...databases, ...users].map((row) => String(row.name)),
            connections: Number(connections[0]?.n),
            tables: tables.map((row) => String(row.name)),
          };
        } finally {
          await closeMysql(admin);
        }
      }
      const admin = await connectPostgres({ url: server.url, applicationName: 'test', connectTimeoutMs: 5000 });
      try {
        const names = await admin.query<{ name: string }>(
          'SELECT datname AS name FROM pg_database WHERE datname LIKE $1 UNION ALL SELECT rolname FROM pg_roles WHERE rolname LIKE $1',
          [pattern],
        );
        const connections = await admin.query<{ n: string }>(
          'SELECT COUNT(*) AS n FROM pg_stat_activity WHERE usename LIKE $1 OR application_name LIKE $1 OR datname LIKE $1',
          [pattern],
        );
        // What episodes could make: relations and functions in `public` of the run's databases (a slot's
        // database per episode, made from the run's own).
        const tables: string[] = [];
        const databases = await admin.query<{ name: string }>(
          'SELECT datname AS name FROM pg_database WHERE datname LIKE $1',
          [pattern],
        );
        for (const { name: database } of databases.rows) {
          const inRun = await connectPostgres({
            url: server.url,
            database,
            applicationName: 'test',
            connectTimeoutMs: 5000,
          });
          try {
            const found = await inRun.query<{ name: string }>(
              `SELECT n.nspname || '.' || c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' OR n.nspname LIKE 'pg\\_temp%'
               UNION ALL SELECT n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`,
            );
            tables.push(...found.rows.map((row) => `${database}: ${row.name}`));
          } finally {
            await inRun.end();
          }
        }
        return { objects: names.rows.map((row) => row.name), connections: Number(connections.rows[0]?.n), tables };
      } finally {
        await admin.end();
      }
    }

    it('leaves only the initial tables after episodes close, and nothing at all after the backend closes', async () => {
      const runId = newRunId();
      const backend = createBackendFromUrl(server.url, { runId });
      const environment = createDbbenchEnvironment({ backend });
      const { tasks } = await environment.loadTasks({ split: 'dev' });
      const task = tasks.find((item) => item.id === 'dev-2') as DbbenchTask;
      for (let round = 0; round < 3; round += 1) {
        const session = await backend.openSession(task);
        for (const sql of litter[backend.dialect]) expect((await session.execute(sql)).ok).toBe(true);
        await session.close();
      }
      const between = await runObjects(runId);
      // MySQL keeps each store's initial table for the next episode of its task; PostgreSQL keeps nothing.
      const kept = between.tables.filter((name) => !name.endsWith(`.${task.tableName}`));
      expect(kept).toEqual([]);
      expect(between.objects.length).toBeGreaterThan(0);
      await backend.close();
      expect(await runObjects(runId)).toEqual({ objects: [], connections: 0, tables: [] });
    });
  });
}
