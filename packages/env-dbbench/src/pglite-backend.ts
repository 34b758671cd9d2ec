import { join } from 'node:path';
import { InfrastructureError } from '@harness-s/core';
import type { DbbenchBackend, DbbenchSession, SessionLimits } from './backend.js';
import { postgresCellKind } from './cell-values.js';
import { episodeBytesFunctionSql, episodeBytesSql } from './episode-disk.js';
import { postgresHelperFunctionsSql } from './mysql-dialect.js';
import { EngineLost, type EngineReply, type EngineRequest, PgliteHost } from './pglite-host.js';
import { screenPgliteStatement } from './pglite-policy.js';
import {
  type EngineError,
  EngineReplaced,
  openPostgresSession,
  type PostgresConnection,
  type SessionEnd,
} from './postgres-session.js';
import type { DbbenchTask } from './records.js';
import { resolveLimits, timeoutMessage } from './result-collector.js';
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

/** The session's savepoint before a statement (postgres-session.ts), sent along with the statement. */
const savepointSql = /^SAVEPOINT \w+$/;

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

/**
 * An engine as a `PostgresConnection`. A request that runs past the time limit, or during which the
 * engine's thread dies, replaces the engine: the session hears EngineReplaced and starts the episode over.
 *
 * Each request is a round trip to the engine's thread, so the session's own steps ride along with the
 * agent's: the savepoint before a statement is sent with the statement, and the measurement of the
 * episode's disk after it (episode-disk.ts) runs right after the statement and is answered from there
 * (any other request first drops it, so it is never stale).
 */
function pgliteConnection(host: PgliteHost, limits: Required<SessionLimits>): PostgresConnection {
  /** Savepoints to make before the next request. */
  let before: string[] = [];
  /** The disk measurement taken right after the last statement. */
  let measured: Array<Array<string | null>> | undefined;
  const call = async (request: EngineRequest): Promise<EngineReply> => {
    const queued = before;
    before = [];
    measured = undefined;
    try {
      return await host.request(
        queued.length > 0 ? { ...request, before: queued } : request,
        limits.statementTimeoutMs,
      );
    } catch (error) {
      if (error instanceof EngineLost) {
        const lost =
          error.reason === 'timeout'
            ? `${timeoutMessage(limits)}; the embedded engine was restarted to stop it`
            : `the embedded engine failed while it ran (${error.message}) and was restarted`;
        throw new EngineReplaced(
          `${lost}, so everything the episode did is undone and the table is as it was at the start`,
        );
      }
      throw engineError(error) ? error : engineFailure(error);
    }
  };
  return {
    run: async (sql, params) => {
      if (savepointSql.test(sql) && !params?.length) {
        before.push(sql);
        return;
      }
      await call(params?.length ? { op: 'query', sql, params } : { op: 'exec', sql });
    },
    rows: async (sql) => {
      const ready = sql === episodeBytesSql ? measured : undefined;
      if (ready) {
        measured = undefined;
        return ready;
      }
      return (await call({ op: 'query', sql })).rows as Array<Array<string | null>>;
    },
    stream: async (sql, collector) => {
      const caps = { maxRows: limits.maxRows, maxBytes: limits.maxResultBytes };
      const result = await call({ op: 'query', sql, text: true, caps, after: episodeBytesSql });
      measured = result.afterRows as Array<Array<string | null>> | undefined;
      collector.setColumns(
        result.fields.map((field) => field.name),
        result.fields.map((field) => postgresCellKind(field.dataTypeID)),
      );
      for (const row of result.rows) if (!collector.add(row)) break;
      return { failed: false };
    },
    inTransaction: () => host.inTransaction(),
    engineError,
  };
}

/** Drops every schema (an episode may have made some and committed them) and makes the clean ones again. */
async function cleanEngine(
  exec: (sql: string) => Promise<void>,
  rows: (sql: string) => Promise<unknown[][]>,
): Promise<void> {
  await exec('ROLLBACK').catch(() => undefined);
  await exec('DISCARD ALL');
  const schemas = await rows(
    `SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'`,
  );
  const drops = schemas.map((row) => `DROP SCHEMA ${quotePostgres(String(row[0]))} CASCADE;`).join(' ');
  await exec(`${drops} ${freshSchemasSql}`);
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, each engine in a worker thread of its own
 * (pglite-host.ts). Each episode leases one engine of a small pool and runs as one transaction on it
 * (postgres-session.ts), so opening and closing cost a few statements. An engine whose episode escaped
 * its transaction is cleaned by dropping every schema; one that fails is replaced.
 *
 * Limits: a statement (or the read of the table for scoring) that runs past the time limit is stopped
 * by ending the engine's thread; the episode starts over on a new engine, which takes seconds to start.
 * The row and byte caps apply after the engine has produced the whole result, in its thread. The
 * engine runs as superuser, so statements that could reach beyond the episode's tables are refused
 * before they run (pglite-policy.ts). Use a PostgreSQL or MySQL server for untrusted models at scale.
 */
export function createPgliteBackend(options: PgliteBackendOptions = {}): DbbenchBackend {
  const poolSize = options.poolSize ?? 1;
  const limits = resolveLimits(options);
  const idle: PgliteHost[] = [];
  const waiting: Array<(engine: PgliteHost) => void> = [];
  const folders: Array<string | undefined> = [];
  const engineFolder = new Map<PgliteHost, string | undefined>();
  let created = 0;
  let inUse = 0;
  let closed = false;

  const freeFolder = (): string | undefined => {
    if (options.dataDir === undefined) return undefined;
    const folder = folders.pop();
    if (folder !== undefined) return folder;
    return poolSize === 1 ? options.dataDir : join(options.dataDir, `engine-${created}`);
  };

  const startEngine = async (): Promise<PgliteHost> => {
    const folder = freeFolder();
    try {
      const engine = await PgliteHost.start({
        ...(folder === undefined ? {} : { dataDir: folder }),
        // A kept folder may hold the schemas of an earlier run (or of an engine stopped mid-statement);
        // a fresh engine has none.
        prepare: (exec, rows) => (folder !== undefined ? cleanEngine(exec, rows) : exec(freshSchemasSql)),
      });
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

  const lease = async (): Promise<PgliteHost> => {
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

  const hand = (engine: PgliteHost): void => {
    if (closed) {
      void retire(engine);
      return;
    }
    const next = waiting.shift();
    if (next) next(engine);
    else idle.push(engine);
  };

  /** Closes an engine for good and frees its folder. */
  const retire = async (engine: PgliteHost): Promise<void> => {
    created -= 1;
    const folder = engineFolder.get(engine);
    engineFolder.delete(engine);
    await engine.close().catch(() => undefined);
    if (folder !== undefined) folders.push(folder);
  };

  /** Takes an engine back; cleans it if its episode escaped the transaction, replaces it if it broke. */
  const release = async (engine: PgliteHost, end: SessionEnd): Promise<void> => {
    inUse -= 1;
    if (!end.broken && !end.dirty) return hand(engine);
    const limit = limits.statementTimeoutMs;
    try {
      await cleanEngine(
        async (sql) => {
          await engine.request({ op: 'exec', sql }, limit);
        },
        async (sql) => (await engine.request({ op: 'query', sql }, limit)).rows,
      );
      hand(engine);
    } catch {
      await retire(engine);
      const next = waiting.shift();
      if (next && !closed) lease().then(next, () => undefined);
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
      return openPostgresSession(pgliteConnection(engine, limits), task, {
        schema: 'public',
        limits,
        resetSql: ['DISCARD ALL', searchPathSql],
        screen: screenPgliteStatement,
        release: (end) => release(engine, end),
      });
    },

    sessionsInUse: () => inUse,

    // Engines still leased close when their episode does.
    async close(): Promise<void> {
      closed = true;
      await Promise.all(idle.splice(0).map(retire));
    },
  };
}
