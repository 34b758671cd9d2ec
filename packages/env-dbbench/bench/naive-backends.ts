/**
 * The baseline the benchmark compares with: what a straightforward harness does for every episode.
 * Create a database (PGlite: a schema, as it cannot open a second database), create the table,
 * insert the rows, run the episode, drop the database. No pooling, no reuse.
 */
import type { PGlite } from '@electric-sql/pglite';
import type mysql from 'mysql2';
import pg from 'pg';
import type { DbbenchBackend, DbbenchSession, SqlOutcome } from '../src/backend.js';
import { serverAddress } from '../src/database-url.js';
import { closeMysql, connectMysql, runMysql } from '../src/mysql-client.js';
import { postgresHelperFunctionsSql } from '../src/mysql-dialect.js';
import { newRunId, runPartName } from '../src/naming.js';
import { startPglite } from '../src/pglite-engine.js';
import { connectPostgres } from '../src/postgres-client.js';
import type { DbbenchTask } from '../src/records.js';
import { createTableSql, insertRowsStatements, quoteIdentifier } from '../src/table-ddl.js';

/** The result shape the benchmark needs: success or the error text. */
const done: SqlOutcome = { ok: true, columns: [], rows: [], truncated: null };
const failed = (error: unknown): SqlOutcome => ({ ok: false, message: (error as Error).message });

/** Reads the task table back, as evaluation does. */
const tableQuery = (task: DbbenchTask, dialect: 'mysql' | 'postgres') =>
  `SELECT ${task.columns.map((column) => quoteIdentifier(dialect, column)).join(', ')} FROM ${quoteIdentifier(dialect, task.tableName)}`;

export function createNaivePostgresBackend(url: string): DbbenchBackend {
  const runId = newRunId();
  const address = serverAddress(url, 5432, 'postgres');
  const admin = new pg.Pool({ ...address, database: address.database || 'postgres', max: 8 });
  let count = 0;
  let inUse = 0;
  return {
    name: 'postgres (naive)',
    dialect: 'postgres',
    start: async () => undefined,
    sessionsInUse: () => inUse,
    close: () => admin.end(),
    async openSession(task): Promise<DbbenchSession> {
      count += 1;
      inUse += 1;
      const database = runPartName(runId, `naive${count}`);
      await admin.query(`CREATE DATABASE ${database}`);
      const client = await connectPostgres({ url, database, applicationName: 'bench', connectTimeoutMs: 5000 });
      await client.query(postgresHelperFunctionsSql);
      await client.query(createTableSql('postgres', task));
      for (const statement of insertRowsStatements('postgres', task))
        await client.query(statement.sql, statement.params);
      return {
        execute: (sql) => client.query(sql).then(() => done, failed),
        readTable: async () => ({
          rows: (await client.query({ text: tableQuery(task, 'postgres'), rowMode: 'array' })).rows,
        }),
        async close() {
          await client.end();
          await admin.query(`DROP DATABASE ${database}`);
          inUse -= 1;
        },
      };
    },
  };
}

export function createNaiveMysqlBackend(url: string): DbbenchBackend {
  const runId = newRunId();
  const idle: mysql.Connection[] = [];
  let count = 0;
  let inUse = 0;
  return {
    name: 'mysql (naive)',
    dialect: 'mysql',
    start: async () => undefined,
    sessionsInUse: () => inUse,
    async close() {
      await Promise.all(idle.splice(0).map(closeMysql));
    },
    async openSession(task): Promise<DbbenchSession> {
      count += 1;
      inUse += 1;
      const database = runPartName(runId, `naive${count}`);
      const connection = idle.pop() ?? (await connectMysql({ url, database: '', connectTimeoutMs: 5000 }));
      await runMysql(connection, `CREATE DATABASE ${database}`);
      await runMysql(connection, `USE ${database}`);
      await runMysql(connection, createTableSql('mysql', task));
      for (const statement of insertRowsStatements('mysql', task))
        await runMysql(connection, statement.sql, statement.params);
      return {
        execute: (sql) => runMysql(connection, sql).then(() => done, failed),
        readTable: async () => ({
          rows: await runMysql<Array<Array<string | null>>>(connection, tableQuery(task, 'mysql'), [], true),
        }),
        async close() {
          await runMysql(connection, `DROP DATABASE ${database}`);
          idle.push(connection);
          inUse -= 1;
        },
      };
    },
  };
}

export function createNaivePgliteBackend(): DbbenchBackend {
  let engine: Promise<PGlite> | undefined;
  let queue: Promise<void> = Promise.resolve();
  let count = 0;
  let inUse = 0;
  const start = () => {
    engine ??= startPglite().then(async (started) => {
      await started.exec(
        `CREATE SCHEMA dbbench_compat; SET search_path TO dbbench_compat; ${postgresHelperFunctionsSql}`,
      );
      return started;
    });
    return engine;
  };
  return {
    name: 'pglite (naive)',
    dialect: 'postgres',
    start: async () => undefined,
    sessionsInUse: () => inUse,
    close: async () => (await engine)?.close(),
    async openSession(task): Promise<DbbenchSession> {
      const db = await start();
      // One episode at a time on the one engine, as the real backend's pool of one.
      let release: () => void = () => undefined;
      const previous = queue;
      queue = new Promise((resolve) => (release = resolve));
      await previous;
      count += 1;
      inUse += 1;
      const schema = `episode_${count}`;
      await db.exec(
        `CREATE SCHEMA ${schema}; SET search_path TO ${schema}, dbbench_compat; ${createTableSql('postgres', task)}`,
      );
      for (const statement of insertRowsStatements('postgres', task)) await db.query(statement.sql, statement.params);
      return {
        execute: (sql) => db.query(sql).then(() => done, failed),
        readTable: async () => ({
          rows: (await db.query<Array<string | null>>(tableQuery(task, 'postgres'), [], { rowMode: 'array' })).rows,
        }),
        async close() {
          await db.exec(`DROP SCHEMA ${schema} CASCADE`);
          inUse -= 1;
          release();
        },
      };
    },
  };
}
