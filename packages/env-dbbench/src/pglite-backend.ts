import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { InfrastructureError } from '@harness-s/core';
import type { DbbenchBackend, DbbenchSession, SessionLimits } from './backend.js';
import { postgresCellKind } from './cell-values.js';
import { episodeBytesFunctionSql } from './episode-disk.js';
import { postgresHelperFunctionsSql } from './mysql-dialect.js';
import { startPglite } from './pglite-engine.js';
import { screenPgliteStatement } from './pglite-policy.js';
import { type EngineError, openPostgresSession, type PostgresConnection, type SessionEnd } from './postgres-session.js';
import type { DbbenchTask } from './records.js';
import { resolveLimits } from './result-collector.js';
import { quotePostgres } from './table-ddl.js';

export interface PgliteBackendOptions extends SessionLimits {
  /** Engines kept warm; each serves one episode at a time. Each takes seconds to start. */
  poolSize?: number;
  /**
   * A folder for the engines' clusters (`pglite:/path`), kept between runs; engine n of a pool of
   * several uses `<folder>/engine-<n>`. In memory when absent.
   */
  dataDir?: string;
}

/** Schema that holds the MySQL-compatibility functions used by translated gold SQL. */
const compatSchema = 'dbbench_compat';
const searchPathSql = `SET search_path TO public, ${compatSchema}`;

/** Creates `public` and the compatibility schema with its functions, and sets the search path. */
const freshSchemasSql = `CREATE SCHEMA IF NOT EXISTS public; CREATE SCHEMA ${compatSchema}; SET search_path TO ${compatSchema}; ${postgresHelperFunctionsSql}; ${episodeBytesFunctionSql} ${searchPathSql};`;

/** Types whose PGlite parsing loses what Python would print (digits, microseconds): read as text. */
const textParsers = Object.fromEntries(
  [20, 1082, 1083, 1114, 1184, 1266, 1700].map((oid) => [oid, (text: string) => text]),
);

/** An error PGlite raised for the statement (it carries an SQLSTATE), as opposed to a broken engine. */
function engineError(error: unknown): EngineError | null {
  const code = (error as { code?: unknown }).code;
  if (error instanceof Error && typeof code === 'string') return { message: error.message, code };
  return null;
}

/** Wraps a driver failure that is not an SQL error. */
function engineFailure(error: unknown): InfrastructureError {
  return new InfrastructureError(`PGlite failed: ${(error as Error).message}`, { code: 'db-failed', cause: error });
}

/** An engine as a `PostgresConnection`. PGlite runs one statement at a time and cannot stop one. */
function pgliteConnection(engine: PGlite): PostgresConnection {
  const call = async <T>(body: () => Promise<T>): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      throw engineError(error) ? error : engineFailure(error);
    }
  };
  return {
    run: (sql, params) =>
      call(async () => {
        if (params?.length) await engine.query(sql, params);
        else await engine.exec(sql);
      }),
    rows: (sql) => call(async () => (await engine.query<Array<string | null>>(sql, [], { rowMode: 'array' })).rows),
    stream: (sql, collector) =>
      call(async () => {
        const result = await engine.query<unknown[]>(sql, [], { rowMode: 'array', parsers: textParsers });
        collector.setColumns(
          result.fields.map((field) => field.name),
          result.fields.map((field) => postgresCellKind(field.dataTypeID)),
        );
        for (const row of result.rows) if (!collector.add(row)) break;
        return { failed: false };
      }),
    inTransaction: () => engine.isInTransaction(),
    engineError,
  };
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, in process. Each episode leases one
 * engine of a small pool and runs as one transaction on it (postgres-session.ts), so opening and
 * closing cost a few statements. An engine whose episode escaped its transaction is cleaned by
 * dropping every schema; one that fails is replaced.
 *
 * Limits: PGlite cannot stop a running statement (it is single-threaded, in this process), so an
 * endless query blocks its engine; the row and byte caps apply only after the engine has produced
 * the whole result. It runs as superuser, so statements that could reach beyond the episode's tables
 * are refused before they run (pglite-policy.ts). Use a PostgreSQL or MySQL server for untrusted
 * models at scale.
 */
export function createPgliteBackend(options: PgliteBackendOptions = {}): DbbenchBackend {
  const poolSize = options.poolSize ?? 1;
  const limits = resolveLimits(options);
  const idle: PGlite[] = [];
  const waiting: Array<(engine: PGlite) => void> = [];
  const folders: Array<string | undefined> = [];
  const engineFolder = new Map<PGlite, string | undefined>();
  let created = 0;
  let inUse = 0;
  let closed = false;

  const freeFolder = (): string | undefined => {
    if (options.dataDir === undefined) return undefined;
    const folder = folders.pop();
    if (folder !== undefined) return folder;
    return poolSize === 1 ? options.dataDir : join(options.dataDir, `engine-${created}`);
  };

  /** Drops every schema (an episode may have made some and committed them) and rebuilds the clean ones. */
  const cleanEngine = async (engine: PGlite): Promise<void> => {
    await engine.exec('ROLLBACK').catch(() => undefined);
    await engine.exec('DISCARD ALL');
    const schemas = await engine.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'`,
    );
    const drops = schemas.rows.map((row) => `DROP SCHEMA ${quotePostgres(row.nspname)} CASCADE;`).join(' ');
    await engine.exec(`${drops} ${freshSchemasSql}`);
  };

  const startEngine = async (): Promise<PGlite> => {
    const folder = freeFolder();
    try {
      const engine = await startPglite(folder);
      // A kept folder may hold the schemas of an earlier run; a fresh engine has none.
      if (folder !== undefined) await cleanEngine(engine);
      else await engine.exec(freshSchemasSql);
      engineFolder.set(engine, folder);
      return engine;
    } catch (error) {
      if (folder !== undefined) folders.push(folder);
      throw new InfrastructureError(`PGlite failed to start: ${(error as Error).message}`, {
        code: 'db-start-failed',
        cause: error,
        retryable: false,
      });
    }
  };

  const lease = async (): Promise<PGlite> => {
    if (closed) throw new InfrastructureError('the PGlite backend is closed', { code: 'db-closed', retryable: false });
    const ready = idle.pop();
    if (ready) return ready;
    if (created < poolSize) {
      created += 1;
      try {
        return await startEngine();
      } catch (error) {
        created -= 1;
        throw error;
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  };

  const hand = (engine: PGlite): void => {
    const next = waiting.shift();
    if (next) next(engine);
    else idle.push(engine);
  };

  /** Takes an engine back; cleans it if its episode escaped the transaction, replaces it if it broke. */
  const release = async (engine: PGlite, end: SessionEnd): Promise<void> => {
    inUse -= 1;
    if (!end.broken && !end.dirty) return hand(engine);
    try {
      await cleanEngine(engine);
      hand(engine);
    } catch {
      created -= 1;
      const folder = engineFolder.get(engine);
      engineFolder.delete(engine);
      await engine.close().catch(() => undefined);
      if (folder !== undefined) folders.push(folder);
      const next = waiting.shift();
      if (next) lease().then(next, () => undefined);
    }
  };

  return {
    name: 'pglite',
    dialect: 'postgres',

    // Nothing to reach: the first engine starts with the first episode, so commands that never open
    // one (bad flags, a bad task file) stay fast.
    start: async () => undefined,

    async openSession(task: DbbenchTask): Promise<DbbenchSession> {
      const engine = await lease();
      inUse += 1;
      return openPostgresSession(pgliteConnection(engine), task, {
        schema: 'public',
        limits,
        resetSql: ['DISCARD ALL', searchPathSql],
        screen: screenPgliteStatement,
        release: (end) => release(engine, end),
      });
    },

    sessionsInUse: () => inUse,

    async close(): Promise<void> {
      closed = true;
      await Promise.all(idle.splice(0).map((engine) => engine.close().catch(() => undefined)));
    },
  };
}
