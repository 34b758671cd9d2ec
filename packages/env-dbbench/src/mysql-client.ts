/**
 * mysql2 plumbing for the MySQL / MariaDB backend: connecting with a bounded timeout and clear
 * errors, telling SQL errors from a lost connection, and running an agent statement as a stream with
 * its time limit and row caps (mysql-session.ts drives the episode).
 */
import { ConfigError, InfrastructureError } from '@harness-s/core';
import mysql from 'mysql2';
import { mysqlCellKind } from './cell-values.js';
import { redactUrl, serverAddress, unreachableError } from './database-url.js';
import { GatedMysqlSocket, type PacketGate } from './mysql-frames.js';
import type { EngineError } from './postgres-session.js';
import type { ResultCollector } from './result-collector.js';
import type { StatementKind } from './statement-kind.js';

/** Settings for `connectMysql`. */
export interface MysqlConnectOptions {
  url: string;
  /** Overrides the URL's user, password or database. */
  user?: string;
  password?: string;
  database?: string;
  connectTimeoutMs: number;
  /** Several statements per call: only for the backend's own administration. */
  multipleStatements?: boolean;
  /** Connection character set and collation, e.g. `UTF8MB4_GENERAL_CI`. */
  charset?: string;
  /** Bounds every packet the server sends before mysql2 reads it (episode connections). */
  gate?: PacketGate;
}

/** Error numbers that mean the connection is gone (killed, server shutting down), not a failed statement. */
const lostConnectionErrors = new Set([1053, 1152, 1184, 1927, 2006, 2013]);

/** Error numbers of a statement stopped by a time limit or by `KILL QUERY`. */
export const interruptedErrors = { killed: 1317, mariadbTimeout: 1969, mysqlTimeout: 3024 } as const;

/** `ER_CONNECTION_KILLED`: the statement's connection was killed while it ran. */
const connectionKilled = 1927;

/**
 * Thrown by `streamMysqlStatement` when the connection was killed while the agent's statement ran, the
 * backend did not kill it and the statement could have (a user may always kill its own connections;
 * `KILL` is refused in the SQL, so only SQL run from text can: `mayEndOwnConnection`). `message` is the
 * server's error in mysql-connector's text. A connection killed under any other statement was killed
 * from outside: the connection is lost (InfrastructureError).
 */
export class ConnectionKilledByStatement extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConnectionKilledByStatement';
  }
}

/** The engine's error in mysql-connector's text (`1146 (42S02): Table ... doesn't exist`), or null when the connection failed. */
export function mysqlEngineError(error: unknown): EngineError | null {
  const { errno, sqlState, sqlMessage, fatal } = error as {
    errno?: unknown;
    sqlState?: unknown;
    sqlMessage?: unknown;
    fatal?: unknown;
  };
  if (fatal === true || typeof errno !== 'number' || lostConnectionErrors.has(errno)) return null;
  const message = typeof sqlMessage === 'string' ? sqlMessage : (error as Error).message;
  const state = typeof sqlState === 'string' && sqlState !== '' ? sqlState : '';
  return { message: state ? `${errno} (${state}): ${message}` : `${errno}: ${message}`, code: String(errno) };
}

/** The error for a connection that failed under an episode. */
export function lostMysqlConnection(error: unknown): InfrastructureError {
  return new InfrastructureError(`lost the MySQL connection: ${(error as Error).message}`, {
    code: 'db-connection-lost',
    cause: error,
  });
}

/**
 * Connects one connection. A server that does not answer gives InfrastructureError `cannot reach
 * <url>: <reason>` (not retried); a refused login or a missing database gives ConfigError.
 */
export async function connectMysql(options: MysqlConnectOptions): Promise<mysql.Connection> {
  const address = serverAddress(options.url, 3306, 'root');
  const connection = mysql.createConnection({
    host: address.host,
    port: address.port,
    user: options.user ?? address.user,
    password: options.password ?? address.password,
    ...((options.database ?? address.database) ? { database: options.database ?? address.database } : {}),
    connectTimeout: options.connectTimeoutMs,
    multipleStatements: options.multipleStatements ?? false,
    ...(options.charset ? { charset: options.charset } : {}),
    // Values as Python drivers see them: DECIMAL and BIGINT as exact text, dates as text, JSON as text.
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    jsonStrings: true,
    // The server may not read files from this machine.
    flags: ['-LOCAL_FILES'],
    ...(options.gate ? { stream: () => gatedSocket(options.gate as PacketGate, address.host, address.port) } : {}),
  });
  // A connection that dies between queries emits 'error'; the next query then fails and reports it.
  connection.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
  } catch (error) {
    connection.destroy();
    const errno = (error as { errno?: unknown }).errno;
    if (errno === 1045 || errno === 1044 || errno === 1049) {
      throw new ConfigError(`cannot log in to ${redactUrl(options.url)}: ${(error as Error).message}`, {
        code: 'db-login-failed',
        cause: error,
      });
    }
    throw unreachableError(options.url, error);
  }
  return connection;
}

/** A connected socket that bounds what the server sends (mysql2 connects only the sockets it makes). */
function gatedSocket(gate: PacketGate, host: string, port: number): GatedMysqlSocket {
  const socket = new GatedMysqlSocket(gate);
  socket.connect(port, host);
  socket.setNoDelay(true);
  return socket;
}

/** Runs `sql`; resolves with the rows (or the OK packet) and the column definitions. */
export function runMysql<T = unknown>(
  connection: mysql.Connection,
  sql: string,
  params: unknown[] = [],
  rowsAsArray = false,
): Promise<T> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, values: params, rowsAsArray }, (error, rows) =>
      error ? reject(error) : resolve(rows as T),
    );
  });
}

/** Ends a connection without waiting for the server. */
export function closeMysql(connection: mysql.Connection): Promise<void> {
  return new Promise((resolve) => {
    connection.end(() => resolve());
    setTimeout(() => {
      connection.destroy();
      resolve();
    }, 1000).unref();
  });
}

/** How the backend stops a statement on another connection (by thread id). */
export interface MysqlStopper {
  killQuery(threadId: number): Promise<void>;
  killConnection(threadId: number): Promise<void>;
}

/** What `streamMysqlStatement` saw. */
export interface MysqlStatementEnd {
  /** The server reported no open transaction afterwards: the statement committed it. */
  escaped: boolean;
  /** The backend sent KILL QUERY for this statement (its cap or time limit). */
  killed: boolean;
  /** Stopped by the time limit. */
  timedOut: boolean;
  /** Stopped while it wrote past the episode's disk limit. */
  diskStopped: boolean;
}

/** What guards one agent statement besides its time limit and caps. */
export interface MysqlStatementGuard {
  /** Watches the episode's disk while the statement runs; `onOver` when it is over the limit (disk-watch.ts). */
  watchDisk?: (onOver: () => void) => () => void;
  /** The statement could kill its own connection (`mayEndOwnConnection`). */
  mayKillItself: boolean;
}

/** MySQL's `SERVER_STATUS_IN_TRANS` flag of OK packets. */
const inTransactionFlag = 1;

/**
 * Runs one agent statement, streaming the rows of its first result into `collector`. Reads past a cap
 * are stopped with KILL QUERY; a statement past the time limit (plus grace) too, and it loses its
 * connection if even that does not stop it. SQL errors reject with the driver's error.
 */
export function streamMysqlStatement(
  connection: mysql.Connection,
  gate: PacketGate | undefined,
  sql: string,
  collector: ResultCollector,
  kind: StatementKind,
  stopper: MysqlStopper,
  timing: { timeoutMs: number; graceMs: number },
  guard: MysqlStatementGuard = { mayKillItself: true },
): Promise<MysqlStatementEnd> {
  return new Promise((resolve, reject) => {
    const end: MysqlStatementEnd = { escaped: false, killed: false, timedOut: false, diskStopped: false };
    let stopped: 'cap' | 'timeout' | 'disk' | null = null;
    let settled = false;
    let columnsSet = false;
    const timers: NodeJS.Timeout[] = [];
    let killedConnection = false;
    const stop = (reason: 'cap' | 'timeout' | 'disk') => {
      stopped = reason;
      end.killed = true;
      stopper.killQuery(connection.threadId).catch(() => undefined);
    };
    const settle = (body: () => void) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      unwatchDisk();
      connection.off('error', onConnectionLost);
      if (gate) gate.onOversized = null;
      body();
    };
    // A row over the packet bound never reaches mysql2: the result is cut there, as at the byte cap.
    if (gate) {
      gate.onOversized = () => {
        collector.cut('bytes');
        if (kind.kind === 'read' && stopped === null) stop('cap');
      };
    }
    // mysql2 reports a lost connection to the connection, not to a query without a callback.
    const onConnectionLost = (error: Error) => settle(() => reject(lostMysqlConnection(error)));
    connection.on('error', onConnectionLost);
    const statement = connection.query({ sql, rowsAsArray: true });
    statement.on('fields', (fields?: Array<{ name: string; columnType: number; characterSet: number }>) => {
      if (columnsSet || !fields) return;
      columnsSet = true;
      collector.setColumns(
        fields.map((field) => field.name),
        fields.map((field) => mysqlCellKind(field.columnType, field.characterSet)),
      );
    });
    statement.on('result', (row: unknown, resultIndex?: number) => {
      if (!Array.isArray(row)) {
        const status = (row as { serverStatus?: number }).serverStatus ?? inTransactionFlag;
        if ((status & inTransactionFlag) === 0) end.escaped = true;
        return;
      }
      // Python's cursor.fetchall() returns the first result set of a multi-result CALL.
      if ((resultIndex ?? 0) > 0) return;
      if (!collector.add(row) && kind.kind === 'read' && stopped === null) stop('cap');
    });
    statement.on('error', (error: Error & { errno?: number }) => {
      settle(() => {
        const interrupted = error.errno === interruptedErrors.killed;
        if (interrupted && stopped === 'cap') return resolve(end);
        if (interrupted && stopped === 'disk') {
          end.diskStopped = true;
          return resolve(end);
        }
        const limit =
          error.errno === interruptedErrors.mariadbTimeout || error.errno === interruptedErrors.mysqlTimeout;
        if (limit || (interrupted && stopped === 'timeout')) {
          end.timedOut = true;
          return resolve(end);
        }
        if (error.errno === connectionKilled && !killedConnection && guard.mayKillItself) {
          const state = (error as { sqlState?: string }).sqlState ?? '70100';
          return reject(
            new ConnectionKilledByStatement(`${connectionKilled} (${state}): ${error.message}`, { cause: error }),
          );
        }
        reject(mysqlEngineError(error) ? error : lostMysqlConnection(error));
      });
    });
    statement.on('end', () =>
      settle(() => {
        // KILL QUERY stops SLEEP() without an error: it just returns early.
        if (stopped === 'timeout') end.timedOut = true;
        resolve(end);
      }),
    );
    // A statement writing past the episode's disk limit is stopped as it writes.
    const unwatchDisk =
      guard.watchDisk?.(() => {
        if (stopped === null) stop('disk');
      }) ?? (() => undefined);
    timers.push(
      setTimeout(() => stop('timeout'), timing.timeoutMs + timing.graceMs),
      setTimeout(
        () => {
          killedConnection = true;
          stopper.killConnection(connection.threadId).catch(() => undefined);
        },
        timing.timeoutMs + timing.graceMs + 10_000,
      ),
    );
  });
}
