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
import { episodeBytesSql, episodeMarkSql, mebibytes } from './episode-disk.js';
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

/**
 * Thrown by a `PostgresConnection` whose engine had to be replaced to stop what it ran (PGlite, at the
 * time limit): nothing of the episode is left on the new engine. `message` says why, for the agent.
 */
export class EngineReplaced extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineReplaced';
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
   * whether the transaction was left failed (the statement was cancelled) and needs a rollback, and
   * whether the backend cancelled the statement (by the result caps). Resolves only once any cancel
   * it sent has been delivered, so that a cancel never reaches the next statement.
   */
  stream(sql: string, collector: ResultCollector, kind: StatementKind): Promise<StreamEnd>;
  /** Whether a transaction block is open (possibly failed). */
  inTransaction(): boolean;
  /** The engine's error, or null when `error` means the connection itself failed. */
  engineError(error: unknown): EngineError | null;
}

/** How `PostgresConnection.stream` ended. */
export interface StreamEnd {
  /** The statement was cancelled and the transaction needs a rollback to the savepoint. */
  failed: boolean;
  /** The backend cancelled the statement: at the result caps, at the time limit, or at the disk limit. */
  stopped?: 'cap' | 'timeout' | 'disk' | null;
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
  /**
   * Refuses statements before they run: returns the observation for one that may not run here, or
   * null (PGlite, which runs as superuser, screens what reaches beyond the episode's tables).
   */
  screen?: (sql: string) => string | null;
  /** Called once when the session closes; returns the connection to its backend. */
  release: (end: SessionEnd) => Promise<void>;
}

const savepoint = 'dbbench_statement';

/** How the backend stopped a statement, in messages. */
const stopNames = { cap: 'result caps', timeout: 'time limit', disk: 'disk limit' } as const;

/** What a statement stopped while it wrote was doing, e.g. `it was writing past the episode's 256 MiB disk limit`. */
export const writingPast = (limit: string): string => `it was writing past the episode's ${limit} disk limit`;

/** The episode session; create with `openPostgresSession`. */
class PostgresSession implements DbbenchSession {
  private closed = false;
  private dirty = false;
  private broken = false;
  /** An agent statement may have left session state that the closing rollback keeps. */
  private sessionTouched = false;
  /** What the session is doing on its own behalf, for the message should it fail. */
  private step = 'opening the episode';
  /** How the backend stopped the last agent statement, if it did. */
  private lastStop: StreamEnd['stopped'] = null;
  /** The engine was replaced (EngineReplaced): the episode is made again before its next statement. */
  private replaced = false;

  constructor(
    private readonly connection: PostgresConnection,
    private readonly task: DbbenchTask,
    private readonly options: PostgresSessionOptions,
  ) {}

  /** Begins the episode's transaction and creates the task table in it. */
  async begin(): Promise<void> {
    await this.guard(() => this.createTable());
  }

  /** One round trip: the transaction, the table and its rows. */
  private createTable(): Promise<void> {
    return this.run(
      'creating the task table',
      `BEGIN; ${createTableSql('postgres', this.task)} ${insertRowsLiteralSql(this.task)} ${episodeMarkSql}`,
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
    const refusal = this.options.screen?.(sql);
    if (refusal) return { ok: false, message: refusal, code: '42501' };
    const collector = new ResultCollector(this.options.limits);
    if (touchesSessionState(sql)) this.sessionTouched = true;
    return this.guard(async () => {
      await this.startStatement();
      let outcome: SqlOutcome;
      try {
        outcome = await this.runStatement(sql, collector, kind);
      } finally {
        this.noticeEscape();
      }
      if (this.replaced) return outcome;
      return (await this.checkDisk()) ?? outcome;
    });
  }

  /** The observation for a statement whose engine was replaced to stop it; the episode starts over. */
  private engineReplaced(error: EngineReplaced): string {
    this.replaced = true;
    this.lastStop = 'timeout';
    // The new engine holds nothing the episode did, committed or not.
    this.dirty = false;
    return error.message;
  }

  /** The agent's statement, its failure undone alone. */
  private async runStatement(sql: string, collector: ResultCollector, kind: StatementKind): Promise<SqlOutcome> {
    this.lastStop = null;
    try {
      const { failed, stopped } = await this.connection.stream(sql, collector, kind);
      this.lastStop = stopped ?? null;
      if (failed && stopped === 'disk') {
        await this.run('undoing a statement stopped at the disk limit', `ROLLBACK TO SAVEPOINT ${savepoint}`);
        const limit = mebibytes(this.options.limits.maxEpisodeBytes);
        return { ok: false, code: '53100', message: `the statement was stopped and undone: ${writingPast(limit)}` };
      }
      if (failed)
        await this.run('undoing a statement stopped at the result caps', `ROLLBACK TO SAVEPOINT ${savepoint}`);
      return collector.outcome();
    } catch (error) {
      if (error instanceof EngineReplaced) {
        return { ok: false, message: this.engineReplaced(error), code: '57014' };
      }
      if (error instanceof StatementTimedOut) {
        this.lastStop = 'timeout';
        await this.run('undoing a statement stopped at the time limit', `ROLLBACK TO SAVEPOINT ${savepoint}`);
        return { ok: false, message: timeoutMessage(this.options.limits), code: '57014' };
      }
      const engineError = this.connection.engineError(error);
      if (!engineError) throw error;
      await this.run('undoing a failed statement', `ROLLBACK TO SAVEPOINT ${savepoint}`);
      // temp_file_limit, which the backend sets to the disk limit.
      const note =
        engineError.code === '53400' && /temp_file_limit/.test(engineError.message)
          ? ` (temporary files count against the episode's ${mebibytes(this.options.limits.maxEpisodeBytes)} disk limit)`
          : '';
      return { ok: false, message: engineError.message + note, code: engineError.code };
    }
  }

  /**
   * The observation for a statement that left the episode's tables over the disk limit, which is then
   * undone; when undone rows still hold the space (they were written into an older table), the whole
   * episode is undone and the task table made again. Null when the episode is within the limit.
   */
  private async checkDisk(): Promise<SqlOutcome | null> {
    const limit = this.options.limits.maxEpisodeBytes;
    const used = await this.episodeBytes();
    if (typeof used === 'number' && used <= limit) return null;
    await this.run('undoing a statement over the disk limit', `ROLLBACK TO SAVEPOINT ${savepoint}`);
    if (typeof used === 'string') {
      return {
        ok: false,
        code: '53100',
        message: `the statement was undone: the disk its tables take could not be measured after it (${used})`,
      };
    }
    const over = `it left the episode's tables at ${mebibytes(used, true)}, over its ${mebibytes(limit)} disk limit`;
    const left = await this.episodeBytes();
    if ((typeof left === 'number' && left <= limit) || this.dirty) {
      return { ok: false, code: '53100', message: `the statement was undone: ${over}` };
    }
    // Undone rows keep their space until the transaction ends: end it, and make the table again.
    await this.run('starting the episode over after the disk limit', 'ROLLBACK');
    await this.createTable();
    return {
      ok: false,
      code: '53100',
      message: `the statement was undone, and with it everything the episode did: ${over}, and undone rows keep their space until the episode is undone; the table is as it was at the start`,
    };
  }

  /** Bytes the episode's tables take, or the engine's error text when they cannot be measured. */
  private async episodeBytes(): Promise<number | string> {
    this.step = "measuring the episode's tables";
    try {
      const rows = await this.connection.rows(episodeBytesSql);
      // The agent's statement ended the episode's transaction and began another (COMMIT AND CHAIN).
      if (rows[0]?.[2] === 'true') this.dirty = true;
      return Number(rows[0]?.[0] ?? 0);
    } catch (error) {
      const engineError = this.connection.engineError(error);
      if (!engineError) throw error;
      return engineError.message;
    }
  }

  async readTable(): Promise<{ rows: Array<Array<string | null>> } | { error: string }> {
    this.ensureOpen();
    const columns = this.task.columns.map((column) => `${quotePostgres(column)}::text`).join(', ');
    // Named with its schema: the agent may have changed the search_path.
    const table = `${quotePostgres(this.options.schema)}.${quotePostgres(this.task.tableName)}`;
    return this.guard(async () => {
      await this.startStatement();
      try {
        this.step = 'reading the task table';
        return { rows: await this.connection.rows(`SELECT ${columns} FROM ${table}`) };
      } catch (error) {
        if (error instanceof EngineReplaced) return { error: this.engineReplaced(error) };
        const engineError = this.connection.engineError(error);
        if (!engineError) throw error;
        await this.run('undoing a failed read of the task table', `ROLLBACK TO SAVEPOINT ${savepoint}`);
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
    if (this.replaced) {
      this.replaced = false;
      await this.createTable();
    } else if (!this.connection.inTransaction()) {
      this.dirty = true;
      await this.run('beginning a new transaction', `BEGIN; ${episodeMarkSql}`);
    }
    await this.run('making the savepoint before a statement', `SAVEPOINT ${savepoint}`);
  }

  /** Runs the session's own SQL, saying what it is for should it fail. */
  private run(step: string, sql: string): Promise<void> {
    this.step = step;
    return this.connection.run(sql);
  }

  private noticeEscape(): void {
    if (!this.broken && !this.replaced && !this.connection.inTransaction()) this.dirty = true;
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
      // An engine error here came from the session's own statements (BEGIN, SAVEPOINT, the table setup).
      this.broken = true;
      const reason = engineError ? `${engineError.message} (SQLSTATE ${engineError.code})` : (error as Error).message;
      const lateCancel =
        engineError?.code === '57014' && this.lastStop
          ? `; the backend had cancelled the agent's previous statement (at the ${stopNames[this.lastStop]}), and the cancel arrived after it ended`
          : '';
      throw new InfrastructureError(
        `database error while managing the episode of ${this.task.id}, ${this.step}: ${reason}${lateCancel}`,
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
