/**
 * One DBBench episode on PostgreSQL (a server through node-postgres, or PGlite): the whole episode is
 * one transaction. Opening creates the task's table inside it, as AgentBench creates it (TEXT
 * columns, one multi-row INSERT, here with the values inline to save round trips); closing rolls it back, which removes the table and everything the
 * agent did without a single catalog commit. Each agent statement runs after a savepoint, so a
 * failing statement is undone alone and the episode goes on, as on MySQL.
 *
 * Transaction control by the agent is answered without running it (statement-kind.ts). Should the
 * transaction end anyway, the episode notices (the driver reports the transaction state), starts a
 * new one and marks itself dirty: its backend then cleans the connection's schema from scratch.
 */
import { InfrastructureError } from '@harness-s/core';
import type { DbbenchSession, SessionLimits, SqlOutcome } from './backend.js';
import type { DbbenchTask } from './records.js';
import { ResultCollector, timeoutMessage } from './result-collector.js';
import {
  classifyStatement,
  missingSavepointMessage,
  type StatementKind,
  touchesSessionState,
} from './statement-kind.js';
import { createTableSql, insertRowsLiteralSql, quotePostgres } from './table-ddl.js';

/** Thrown by `PostgresConnection.stream` when the statement was stopped for running too long. */
export class StatementTimedOut extends Error {
  constructor() {
    super('statement timed out');
    this.name = 'StatementTimedOut';
  }
}

/** An error the engine raised for a statement; anything else from a connection means it is lost. */
export interface EngineError {
  message: string;
  code: string;
}

/** What an episode needs from a PostgreSQL connection. */
export interface PostgresConnection {
  /** Runs internal SQL. Throws the engine's error, or InfrastructureError when the connection is lost. */
  run(sql: string, params?: unknown[]): Promise<void>;
  /** Runs internal SQL and returns its rows as arrays of text. */
  rows(sql: string): Promise<Array<Array<string | null>>>;
  /**
   * Runs one agent statement, streaming its rows into `collector` and stopping it when it runs past
   * the time limit (throws StatementTimedOut) or, for reads, once the collector is full. Returns
   * whether the transaction was left failed (the statement was cancelled) and needs a rollback.
   */
  stream(sql: string, collector: ResultCollector, kind: StatementKind): Promise<{ failed: boolean }>;
  /** Whether a transaction block is open (possibly failed). */
  inTransaction(): boolean;
  /** The engine's error, or null when `error` means the connection itself failed. */
  engineError(error: unknown): EngineError | null;
}

/** How the session ended, for its backend. */
export interface SessionEnd {
  /** The transaction ended before close: committed state may be left in the schema. */
  dirty: boolean;
  /** The connection failed: it must not be used again. */
  broken: boolean;
  /** An agent statement may have left session state (variables, locks) that the rollback keeps. */
  sessionTouched?: boolean;
}

export interface PostgresSessionOptions {
  /** Schema the task table is created in (the first of the connection's search_path). */
  schema: string;
  limits: Required<SessionLimits>;
  /**
   * Run after the closing rollback when an agent statement may have left what a rollback keeps
   * (prepared statements, advisory locks, sequence state); default `DISCARD ALL`.
   */
  resetSql?: readonly string[];
  /** Called once when the session closes; returns the connection to its backend. */
  release: (end: SessionEnd) => Promise<void>;
}

const savepoint = 'dbbench_statement';

/** The episode session; create with `openPostgresSession`. */
class PostgresSession implements DbbenchSession {
  private closed = false;
  private dirty = false;
  private broken = false;
  /** An agent statement may have left session state that the closing rollback keeps. */
  private sessionTouched = false;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly task: DbbenchTask,
    private readonly options: PostgresSessionOptions,
  ) {}

  /** Begins the episode's transaction and creates the task table in it. */
  async begin(): Promise<void> {
    // One round trip: the transaction, the table and its rows.
    await this.guard(() =>
      this.connection.run(`BEGIN; ${createTableSql('postgres', this.task)} ${insertRowsLiteralSql(this.task)}`),
    );
  }

  async execute(sql: string): Promise<SqlOutcome> {
    this.ensureOpen();
    const kind = classifyStatement(sql, 'postgres');
    if (kind.kind === 'no-effect') return { ok: true, columns: [], rows: [], truncated: null };
    if (kind.kind === 'missing-savepoint') {
      return { ok: false, message: missingSavepointMessage('postgres', kind.savepoint), code: '3B001' };
    }
    if (kind.kind === 'refused') return { ok: false, message: kind.reason, code: '42501' };
    const collector = new ResultCollector(this.options.limits);
    if (touchesSessionState(sql)) this.sessionTouched = true;
    return this.guard(async () => {
      await this.startStatement();
      try {
        const { failed } = await this.connection.stream(sql, collector, kind);
        if (failed) await this.connection.run(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        return collector.outcome();
      } catch (error) {
        if (error instanceof StatementTimedOut) {
          await this.connection.run(`ROLLBACK TO SAVEPOINT ${savepoint}`);
          return { ok: false, message: timeoutMessage(this.options.limits), code: '57014' };
        }
        const engineError = this.connection.engineError(error);
        if (!engineError) throw error;
        await this.connection.run(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        return { ok: false, message: engineError.message, code: engineError.code };
      } finally {
        this.noticeEscape();
      }
    });
  }

  async readTable(): Promise<{ rows: Array<Array<string | null>> } | { error: string }> {
    this.ensureOpen();
    const columns = this.task.columns.map((column) => `${quotePostgres(column)}::text`).join(', ');
    // Named with its schema: the agent may have changed the search_path.
    const table = `${quotePostgres(this.options.schema)}.${quotePostgres(this.task.tableName)}`;
    return this.guard(async () => {
      await this.startStatement();
      try {
        return { rows: await this.connection.rows(`SELECT ${columns} FROM ${table}`) };
      } catch (error) {
        const engineError = this.connection.engineError(error);
        if (!engineError) throw error;
        await this.connection.run(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        return { error: engineError.message };
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.broken) {
      try {
        await this.connection.run('ROLLBACK');
        if (this.sessionTouched || this.dirty) {
          for (const statement of this.options.resetSql ?? ['DISCARD ALL']) await this.connection.run(statement);
        }
      } catch {
        this.broken = true;
      }
    }
    await this.options.release({ dirty: this.dirty, broken: this.broken });
  }

  /** A savepoint before each statement; a new transaction first if the old one ended. */
  private async startStatement(): Promise<void> {
    if (!this.connection.inTransaction()) {
      this.dirty = true;
      await this.connection.run('BEGIN');
    }
    await this.connection.run(`SAVEPOINT ${savepoint}`);
  }

  private noticeEscape(): void {
    if (!this.broken && !this.connection.inTransaction()) this.dirty = true;
  }

  /** Runs `body`; a lost connection marks the session broken and surfaces as InfrastructureError. */
  private async guard<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (InfrastructureError.isInstance(error)) {
        this.broken = true;
        throw error;
      }
      const engineError = this.connection.engineError(error);
      // An engine error here came from our own statements (BEGIN, SAVEPOINT, the table setup).
      this.broken = true;
      throw new InfrastructureError(
        `database error while managing the episode of ${this.task.id}: ${engineError?.message ?? (error as Error).message}`,
        { code: engineError ? 'db-setup-failed' : 'db-connection-lost', cause: error },
      );
    }
  }

  private ensureOpen(): void {
    if (this.closed) {
      throw new InfrastructureError('the episode session is closed', { code: 'session-closed', retryable: false });
    }
  }
}

/**
 * Opens an episode on `connection`: begins its transaction and creates the task table. On failure
 * the connection is released as broken and the error (InfrastructureError) propagates.
 */
export async function openPostgresSession(
  connection: PostgresConnection,
  task: DbbenchTask,
  options: PostgresSessionOptions,
): Promise<DbbenchSession> {
  const session = new PostgresSession(connection, task, options);
  try {
    await session.begin();
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}
