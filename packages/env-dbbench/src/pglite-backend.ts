import type { PGlite } from '@electric-sql/pglite';
import { InfrastructureError } from '@harness-s/core';
import type { DbbenchBackend, DbbenchSession, ResultColumn, SqlOutcome } from './backend.js';
import { postgresHelperFunctionsSql } from './mysql-dialect.js';
import { startPglite } from './pglite-engine.js';
import type { DbbenchTask } from './records.js';
import { createTableSql, insertRowsStatements, quotePostgres } from './table-ddl.js';

export interface PgliteBackendOptions {
  /** Engines kept warm; each serves one episode at a time. Each takes seconds to start. */
  poolSize?: number;
  /** Rows returned to the agent at most per statement (the rest are counted, not fetched on). */
  maxRows?: number;
}

/** Schema that holds the MySQL-compatibility functions used by translated gold SQL. */
const compatSchema = 'dbbench_compat';

/** Creates `public` and the compatibility schema with its functions, and sets the search path. */
const freshSchemasSql = `CREATE SCHEMA IF NOT EXISTS public; CREATE SCHEMA ${compatSchema}; SET search_path TO ${compatSchema}; ${postgresHelperFunctionsSql}; SET search_path TO public, ${compatSchema};`;

/** PostgreSQL type ids and how their values print. */
function columnKind(dataTypeId: number): ResultColumn['kind'] {
  if (dataTypeId === 20 || dataTypeId === 21 || dataTypeId === 23 || dataTypeId === 26) return 'int';
  if (dataTypeId === 700 || dataTypeId === 701) return 'float';
  if (dataTypeId === 1700) return 'decimal';
  if (dataTypeId === 16) return 'bool';
  if (dataTypeId === 25 || dataTypeId === 1043 || dataTypeId === 1042 || dataTypeId === 19) return 'text';
  return 'other';
}

/** An error PGlite raised for the statement (it carries an SQLSTATE), as opposed to a broken engine. */
function isSqlError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}

/**
 * The embedded engine: PostgreSQL compiled to WebAssembly, in process. Each episode leases one
 * engine of a small pool, creates its task table in `public`, and on close drops every schema the
 * episode could have made, so the next episode starts clean.
 *
 * Limits: PGlite has no working statement timeout (it is single-threaded), so an endless query
 * blocks its engine; use a PostgreSQL or MySQL server for untrusted models at scale.
 */
export function createPgliteBackend(options: PgliteBackendOptions = {}): DbbenchBackend {
  const poolSize = options.poolSize ?? 1;
  const maxRows = options.maxRows ?? 10_000;
  const idle: PGlite[] = [];
  const waiting: Array<(engine: PGlite) => void> = [];
  let created = 0;
  let closed = false;

  const startEngine = async (): Promise<PGlite> => {
    try {
      const engine = await startPglite();
      await engine.exec(freshSchemasSql);
      return engine;
    } catch (error) {
      throw new InfrastructureError(`PGlite failed to start: ${(error as Error).message}`, {
        code: 'db-start-failed',
        cause: error,
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

  const release = (engine: PGlite): void => {
    const next = waiting.shift();
    if (next) next(engine);
    else idle.push(engine);
  };

  /** Brings an engine back to its clean state; an engine that cannot be cleaned is replaced. */
  const reset = async (engine: PGlite): Promise<void> => {
    try {
      await engine.exec('ROLLBACK').catch(() => undefined);
      const schemas = await engine.query<{ nspname: string }>(
        `SELECT nspname FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'`,
      );
      // The compatibility schema is rebuilt too: an episode's SQL may have changed its functions.
      const drops = schemas.rows.map((row) => `DROP SCHEMA ${quotePostgres(row.nspname)} CASCADE;`).join(' ');
      await engine.exec(`RESET ALL; ${drops} ${freshSchemasSql}`);
      release(engine);
    } catch {
      created -= 1;
      await engine.close().catch(() => undefined);
      const next = waiting.shift();
      if (next) lease().then(next, () => undefined);
    }
  };

  return {
    name: 'pglite',
    dialect: 'postgres',

    async openSession(task: DbbenchTask): Promise<DbbenchSession> {
      const engine = await lease();
      try {
        await engine.exec(`SET search_path TO public, ${compatSchema}; ${createTableSql('postgres', task)}`);
        for (const statement of insertRowsStatements('postgres', task))
          await engine.query(statement.sql, statement.params);
      } catch (error) {
        await reset(engine);
        throw new InfrastructureError(`could not create table for ${task.id}: ${(error as Error).message}`, {
          code: 'db-setup-failed',
          cause: error,
        });
      }
      let open = true;
      const ensureOpen = (): void => {
        if (!open)
          throw new InfrastructureError('the episode session is closed', { code: 'session-closed', retryable: false });
      };
      return {
        async execute(sql: string): Promise<SqlOutcome> {
          ensureOpen();
          try {
            const result = await engine.query<unknown[]>(sql, [], { rowMode: 'array' });
            const columns = result.fields.map((field) => ({ name: field.name, kind: columnKind(field.dataTypeID) }));
            const rows = result.rows.slice(0, maxRows);
            return { ok: true, columns, rows, truncatedRows: result.rows.length - rows.length };
          } catch (error) {
            if (isSqlError(error)) return { ok: false, message: error.message, code: error.code };
            throw new InfrastructureError(`PGlite failed: ${(error as Error).message}`, {
              code: 'db-failed',
              cause: error,
            });
          }
        },

        async readTable() {
          ensureOpen();
          const columns = task.columns.map((column) => `${quotePostgres(column)}::text`).join(', ');
          try {
            // Read the table in public explicitly: the agent may have changed its search_path.
            const result = await engine.query<Array<string | null>>(
              `SELECT ${columns} FROM public.${quotePostgres(task.tableName)}`,
              [],
              { rowMode: 'array' },
            );
            return { rows: result.rows };
          } catch (error) {
            if (isSqlError(error)) return { error: error.message };
            throw new InfrastructureError(`PGlite failed: ${(error as Error).message}`, {
              code: 'db-failed',
              cause: error,
            });
          }
        },

        async close(): Promise<void> {
          if (!open) return;
          open = false;
          await reset(engine);
        },
      };
    },

    async close(): Promise<void> {
      closed = true;
      await Promise.all(idle.splice(0).map((engine) => engine.close().catch(() => undefined)));
    },
  };
}
