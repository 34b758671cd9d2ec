/**
 * One DBBench episode on MySQL / MariaDB. The task table already exists, committed, in the episode's
 * own database (its "store", mysql-backend.ts); the episode is one transaction on it that close()
 * rolls back, so the store is pristine again for the next episode of the same task. A failing
 * statement is undone alone, as MySQL always does. Statements that would end the transaction are
 * either answered without running them (statement-kind.ts) or, like DDL, noticed through the
 * server's transaction flag: the episode is then dirty and its store is dropped instead of reused.
 *
 * The store's disk is measured after every statement that may have written (mysql-disk.ts), and
 * while a long one runs (disk-watch.ts). Over the limit, the episode starts over: undone rows keep
 * their space in InnoDB's files, so the store is made again with the task table as it was at the start.
 */
import { InfrastructureError } from '@harness-s/core';
import type mysql from 'mysql2';
import type { DbbenchSession, SessionLimits, SqlOutcome } from './backend.js';
import { mebibytes } from './episode-disk.js';
import {
  ConnectionKilledByStatement,
  interruptedErrors,
  lostMysqlConnection,
  type MysqlStopper,
  mysqlEngineError,
  runMysql,
  streamMysqlStatement,
} from './mysql-client.js';
import { countedBytes, type StoreDisk, storeKeepBytes } from './mysql-disk.js';
import type { PacketGate } from './mysql-frames.js';
import { type SessionEnd, writingPast } from './postgres-session.js';
import type { DbbenchTask } from './records.js';
import { ResultCollector, timeoutMessage } from './result-collector.js';
import {
  classifyStatement,
  isSingleMysqlRead,
  mayEndOwnConnection,
  missingSavepointMessage,
  touchesMysqlSession,
} from './statement-kind.js';
import { quoteMysql } from './table-ddl.js';

/** Errors after which InnoDB has rolled back the whole transaction, not just the statement. */
const transactionRolledBack = new Set([1205, 1213]);

export interface MysqlSessionOptions {
  connection: mysql.Connection;
  /** The bound on what the server sends on `connection`, when it has one. */
  gate?: PacketGate;
  /** The episode's database, where the task table is. */
  database: string;
  limits: Required<SessionLimits>;
  stopper: MysqlStopper;
  graceMs: number;
  /**
   * Ends the episode's transaction (default `ROLLBACK`). The backend also begins the next one here,
   * so that the next episode of the same task on this connection starts without a round trip.
   */
  closeSql?: string;
  /** What the episode's store takes now, measured from outside (mysql-disk.ts). */
  measureDisk: () => Promise<StoreDisk>;
  /** Makes the store again: the task table as at the start, nothing else (the episode's transaction has ended). */
  rebuildStore: () => Promise<void>;
  /** Watches the store's disk while a statement runs (disk-watch.ts). */
  watchDisk?: (onOver: () => void) => () => void;
  release: (end: SessionEnd) => Promise<void>;
}

/** The episode session; its transaction is already open when it is made. */
export class MysqlSession implements DbbenchSession {
  private closed = false;
  private dirty = false;
  private broken = false;
  private sessionTouched = false;
  /** The server's error when one of the agent's statements killed the episode's connection. */
  private killedBy: string | null = null;
  /** What the store's tables took when last measured (their files never shrink). */
  private storeBytes = 0;

  constructor(
    private readonly task: DbbenchTask,
    private readonly options: MysqlSessionOptions,
  ) {}

  async execute(sql: string): Promise<SqlOutcome> {
    this.ensureOpen();
    if (this.killedBy) return { ok: false, message: this.afterKill(), code: '2013' };
    const kind = classifyStatement(sql, 'mysql');
    if (kind.kind === 'no-effect') return { ok: true, columns: [], rows: [], truncated: null };
    if (kind.kind === 'missing-savepoint') {
      return { ok: false, message: missingSavepointMessage('mysql', kind.savepoint), code: '1305' };
    }
    if (kind.kind === 'refused') return { ok: false, message: `1227 (42000): ${kind.reason}`, code: '1227' };
    const collector = new ResultCollector(this.options.limits);
    const { connection, stopper, limits, graceMs } = this.options;
    if (touchesMysqlSession(sql)) this.sessionTouched = true;
    let outcome: SqlOutcome;
    let diskStopped = false;
    try {
      const end = await streamMysqlStatement(
        connection,
        this.options.gate,
        sql,
        collector,
        kind,
        stopper,
        { timeoutMs: limits.statementTimeoutMs, graceMs },
        {
          mayKillItself: mayEndOwnConnection(sql),
          ...(this.options.watchDisk ? { watchDisk: this.options.watchDisk } : {}),
        },
      );
      if (end.escaped) this.dirty = true;
      if (end.killed) await this.absorbKill();
      diskStopped = end.diskStopped;
      outcome = end.timedOut ? { ok: false, message: timeoutMessage(limits), code: '1969' } : collector.outcome();
    } catch (error) {
      if (error instanceof ConnectionKilledByStatement) {
        // The agent's doing, not the server's: an observation, and the episode goes on without a database.
        this.broken = true;
        this.killedBy = error.message;
        return {
          ok: false,
          message: `${error.message} (the statement killed the episode's own connection: everything the episode did is undone, and no further statement can run)`,
          code: '1927',
        };
      }
      const engineError = mysqlEngineError(error);
      if (!engineError) return this.lost(error);
      if (transactionRolledBack.has(Number(engineError.code))) this.dirty = true;
      const temporary =
        engineError.code === '1044' && /\bTEMPORARY\b/i.test(sql)
          ? ' (temporary tables are not available here: the server does not report the disk they take)'
          : '';
      outcome = { ok: false, message: engineError.message + temporary, code: engineError.code };
    }
    // A single read writes nothing unless the episode made routines (which committed: it is dirty).
    if (diskStopped || this.dirty || !isSingleMysqlRead(sql)) return (await this.checkDisk(diskStopped)) ?? outcome;
    return outcome;
  }

  /**
   * The observation for a statement that left the store over the disk limit (or was stopped writing
   * past it); the episode then starts over on a store made again. Null when the store is within the limit.
   */
  private async checkDisk(stopped: boolean): Promise<SqlOutcome | null> {
    const limit = this.options.limits.maxEpisodeBytes;
    let disk: StoreDisk;
    try {
      disk = await this.options.measureDisk();
    } catch (error) {
      this.broken = true;
      throw new InfrastructureError(
        `could not measure the disk of the episode of ${this.task.id}: ${(error as Error).message}`,
        {
          code: 'db-measure-failed',
          cause: error,
        },
      );
    }
    const bytes = countedBytes(disk);
    this.storeBytes = Math.max(this.storeBytes, disk.bytes);
    if (bytes <= limit && !stopped) return null;
    const why =
      disk.unmeasured.length > 0
        ? `it made a table whose disk the server does not report (${disk.unmeasured.join(', ')}), which the ${mebibytes(limit)} disk limit cannot allow`
        : stopped
          ? writingPast(mebibytes(limit))
          : `it left the episode's tables at ${mebibytes(bytes, true)}, over its ${mebibytes(limit)} disk limit`;
    await this.startOver();
    return {
      ok: false,
      code: '53100',
      message: `the statement was ${stopped ? 'stopped and ' : ''}undone, and with it everything the episode did: ${why}; undone rows keep their space in the tables' files, so the tables were made again, as they were at the start`,
    };
  }

  /** Ends the episode's transaction, makes the store again and begins a new transaction on it. */
  private async startOver(): Promise<void> {
    const { connection, database } = this.options;
    try {
      await runMysql(connection, 'ROLLBACK');
      await this.options.rebuildStore();
      await runMysql(connection, `USE ${quoteMysql(database)}`);
      await runMysql(connection, 'START TRANSACTION');
    } catch (error) {
      const engineError = mysqlEngineError(error);
      if (!engineError) return this.lost(error);
      this.broken = true;
      throw new InfrastructureError(`could not make the tables of ${this.task.id} again: ${engineError.message}`, {
        code: 'db-setup-failed',
        cause: error,
      });
    }
    this.storeBytes = 0;
    // The store is as new, but dropping it at close costs little and keeps this rare case simple.
    this.dirty = true;
  }

  /** The observation for anything asked of the database after a statement killed the connection. */
  private afterKill(): string {
    return `the episode's connection was killed by one of its own statements (${this.killedBy}): no statement can run`;
  }

  async readTable(): Promise<{ rows: Array<Array<string | null>> } | { error: string }> {
    this.ensureOpen();
    if (this.killedBy) return { error: this.afterKill() };
    const columns = this.task.columns.map(quoteMysql).join(', ');
    // Named with its database: the agent may have switched to another with USE.
    const table = `${quoteMysql(this.options.database)}.${quoteMysql(this.task.tableName)}`;
    const { gate } = this.options;
    let skipped = false;
    if (gate) gate.onOversized = () => (skipped = true);
    try {
      const rows = await runMysql<unknown[][]>(this.options.connection, `SELECT ${columns} FROM ${table}`, [], true);
      if (skipped)
        return { error: `a row is longer than the ${gate?.maxPacketBytes} bytes a row may take when it is fetched` };
      return { rows: rows.map((row) => row.map((cell) => (cell === null ? null : cellText(cell)))) };
    } catch (error) {
      const engineError = mysqlEngineError(error);
      if (!engineError) return this.lost(error);
      return { error: engineError.message };
    } finally {
      if (gate) gate.onOversized = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.broken) {
      try {
        await runMysql(this.options.connection, this.options.closeSql ?? 'ROLLBACK');
      } catch {
        this.broken = true;
      }
    }
    // A store whose files grew keeps that space: it is dropped rather than given to the next episode.
    const grown = this.storeBytes > storeKeepBytes;
    await this.options.release({
      dirty: this.dirty || grown,
      broken: this.broken,
      sessionTouched: this.sessionTouched,
    });
  }

  /**
   * A KILL QUERY that arrives just after its statement finished could hit the next one; a harmless
   * statement takes it if so.
   */
  private async absorbKill(): Promise<void> {
    try {
      await runMysql(this.options.connection, 'DO 0');
    } catch (error) {
      if ((error as { errno?: unknown }).errno !== interruptedErrors.killed) this.lost(error);
    }
  }

  private lost(error: unknown): never {
    this.broken = true;
    throw InfrastructureError.isInstance(error) ? error : lostMysqlConnection(error);
  }

  private ensureOpen(): void {
    if (this.closed) {
      throw new InfrastructureError('the episode session is closed', { code: 'session-closed', retryable: false });
    }
  }
}

/** A cell of the task table as text (the agent may have changed a column's type). */
function cellText(cell: unknown): string {
  if (typeof cell === 'string') return cell;
  if (cell instanceof Uint8Array) return Buffer.from(cell).toString('utf8');
  return String(cell);
}
