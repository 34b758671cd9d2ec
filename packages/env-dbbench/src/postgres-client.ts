/**
 * node-postgres plumbing for the PostgreSQL server backend: connecting with a bounded timeout and
 * clear errors, telling SQL errors from a lost connection, and running an agent statement as a
 * stream with its time limit and row caps (postgres-session.ts drives the episode).
 */
import { ConfigError, InfrastructureError } from '@harness-s/core';
import pg from 'pg';
import { postgresCellKind } from './cell-values.js';
import { redactUrl, serverAddress, unreachableError } from './database-url.js';
import { GatedSocket, type MessageGate, type OversizedMessage } from './postgres-frames.js';
import { type EngineError, type PostgresConnection, StatementTimedOut, type StreamEnd } from './postgres-session.js';
import type { ResultCollector } from './result-collector.js';
import type { StatementKind } from './statement-kind.js';

/** Every value as PostgreSQL's text: cell-values.ts decides how it prints. */
const textTypes = { getTypeParser: () => (value: string) => value };

/** SQLSTATE classes that mean the connection is gone, not that the statement failed. */
const lostConnectionCodes = /^(08|57P0)/;

/** The engine's error for a statement, or null when `error` means the connection failed. */
export function postgresEngineError(error: unknown): EngineError | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || lostConnectionCodes.test(code)) return null;
  return { message: (error as Error).message, code };
}

/** Settings for `connectPostgres`. */
export interface PostgresConnectOptions {
  url: string;
  /** Overrides the URL's user, password or database. */
  user?: string;
  password?: string;
  database?: string;
  applicationName: string;
  connectTimeoutMs: number;
  /** Parse nothing: values arrive as text (episode connections). */
  textValues?: boolean;
  /** Bounds every message the server sends before node-postgres reads it (episode connections). */
  gate?: MessageGate;
}

/**
 * Connects one client. A server that does not answer gives InfrastructureError `cannot reach <url>:
 * <reason>` (not retried); a refused login or a missing database gives ConfigError.
 */
export async function connectPostgres(options: PostgresConnectOptions): Promise<pg.Client> {
  const address = serverAddress(options.url, 5432, 'postgres');
  const client = new pg.Client({
    host: address.host,
    port: address.port,
    user: options.user ?? address.user,
    password: options.password ?? address.password,
    database: options.database ?? (address.database || 'postgres'),
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(options.textValues ? { types: textTypes } : {}),
    ...(options.gate ? { stream: () => new GatedSocket(options.gate as MessageGate) } : {}),
  });
  // A connection that dies between queries emits 'error'; the next query then fails and reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const code = (error as { code?: unknown }).code;
    if (code === '28P01' || code === '28000' || code === '3D000' || code === '42501') {
      throw new ConfigError(`cannot log in to ${redactUrl(options.url)}: ${(error as Error).message}`, {
        code: 'db-login-failed',
        cause: error,
      });
    }
    throw unreachableError(options.url, error);
  }
  return client;
}

/** Sends `sql` and maps a lost connection to InfrastructureError. */
async function query(
  client: pg.Client,
  config: pg.QueryConfig | pg.QueryArrayConfig | string,
): Promise<pg.QueryResult> {
  try {
    return await client.query(config);
  } catch (error) {
    throw postgresEngineError(error) ? error : lostConnection(error);
  }
}

/** The error for a connection that failed under an episode. */
export function lostConnection(error: unknown): InfrastructureError {
  return new InfrastructureError(`lost the PostgreSQL connection: ${(error as Error).message}`, {
    code: 'db-connection-lost',
    cause: error,
  });
}

/** How the backend stops a statement on another connection (by server process id). */
export interface StatementStopper {
  cancel(processId: number): Promise<void>;
  terminate(processId: number): Promise<void>;
}

/** Timing of the backend's own stop, after the server's `statement_timeout` had its chance. */
export interface WatchdogTiming {
  timeoutMs: number;
  /** Extra time before the backend cancels the statement itself (the agent may have raised its timeout). */
  graceMs: number;
}

/** The error of a read whose rows include one longer than the connection's message bound. */
function rowTooLong(gate: MessageGate): Error & { code: string } {
  return Object.assign(
    new Error(`a row is longer than the ${gate.maxMessageBytes} bytes a row may take when it is fetched`),
    { code: '54000' },
  );
}

/**
 * Watches the disk of the episode while one of its statements runs (disk-watch.ts): `onOver` is called
 * when the episode is over its disk limit; the returned function ends the watch.
 */
export type DiskWatcher = (onOver: () => void) => () => void;

/**
 * An episode client as a `PostgresConnection` with a watchdog, streaming row caps, a message bound and,
 * when `watchDisk` is given, a bound on the disk a statement writes while it runs.
 */
export function postgresConnection(
  client: pg.Client,
  gate: MessageGate,
  stopper: StatementStopper,
  timing: WatchdogTiming,
  watchDisk?: DiskWatcher,
): PostgresConnection {
  const processId = (client as unknown as { processID: number }).processID;
  return {
    run: async (sql, params) => {
      await query(client, params?.length ? { text: sql, values: params } : sql);
    },
    rows: async (sql) => {
      let skipped = false;
      gate.onOversized = (message) => {
        if (message.type === 'D') skipped = true;
      };
      try {
        const result = await query(client, { text: sql, rowMode: 'array' } as pg.QueryArrayConfig);
        if (skipped) throw rowTooLong(gate);
        return result.rows as Array<Array<string | null>>;
      } finally {
        gate.onOversized = null;
      }
    },
    stream: (sql, collector, kind) =>
      streamStatement(client, gate, processId, sql, collector, kind, stopper, timing, watchDisk),
    inTransaction: () => client.getTransactionStatus() !== 'I',
    engineError: postgresEngineError,
  };
}

function streamStatement(
  client: pg.Client,
  gate: MessageGate,
  processId: number,
  sql: string,
  collector: ResultCollector,
  kind: StatementKind,
  stopper: StatementStopper,
  timing: WatchdogTiming,
  watchDisk: DiskWatcher | undefined,
): Promise<StreamEnd> {
  return new Promise((resolve, reject) => {
    let stopped: StreamEnd['stopped'] = null;
    let settled = false;
    let columnsSet = false;
    let errorCut = false;
    /** The backend's cancel, once sent: the statement settles only after it was delivered. */
    let cancelled: Promise<void> = Promise.resolve();
    const timers: NodeJS.Timeout[] = [];
    const stop = (reason: 'cap' | 'timeout' | 'disk') => {
      stopped = reason;
      const sent = stopper.cancel(processId).catch(() => undefined);
      cancelled = cancelled.then(() => sent);
    };
    const settle = (body: () => void) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      unwatchDisk();
      gate.onOversized = null;
      // A cancel still on its way would stop whatever the connection runs next.
      void cancelled.then(body);
    };
    const setColumns = (fields: Array<{ name: string; dataTypeID: number }> | undefined) => {
      if (columnsSet || !fields) return;
      columnsSet = true;
      collector.setColumns(
        fields.map((field) => field.name),
        fields.map((field) => postgresCellKind(field.dataTypeID)),
      );
    };
    // A row over the message bound never reaches node-postgres: the result is cut there, as at the byte cap.
    gate.onOversized = (message: OversizedMessage) => {
      if (message.type === 'E') errorCut = true;
      if (message.type !== 'D') return;
      collector.cut('bytes');
      if (kind.kind === 'read' && stopped === null) stop('cap');
    };
    // Extended protocol: one statement only, as AgentBench's one-statement rule asks.
    const statement = new pg.Query({ text: sql, rowMode: 'array', queryMode: 'extended' } as pg.QueryConfig);
    statement.on('row', (row: unknown[], result?: { fields?: Array<{ name: string; dataTypeID: number }> }) => {
      setColumns(result?.fields);
      // Past a cap rows are dropped; a read is cancelled at once, a change runs to its end.
      if (!collector.add(row) && kind.kind === 'read' && stopped === null) stop('cap');
    });
    statement.on('end', (result?: { fields?: Array<{ name: string; dataTypeID: number }> }) => {
      settle(() => {
        setColumns(result?.fields);
        resolve({ failed: false, stopped });
      });
    });
    statement.on('error', (error: Error & { code?: string }) => {
      if (errorCut)
        error.message = `${error.message}... (the message was cut: it is longer than ${gate.maxMessageBytes} bytes)`;
      settle(() => {
        const cancelled = error.code === '57014';
        if (cancelled && (stopped === 'cap' || stopped === 'disk')) resolve({ failed: true, stopped });
        else if (cancelled && (stopped === 'timeout' || /statement timeout/.test(error.message)))
          reject(new StatementTimedOut());
        else if (stopped === 'timeout' && !postgresEngineError(error)) reject(lostConnection(error));
        else reject(postgresEngineError(error) ? error : lostConnection(error));
      });
    });
    // A statement writing past the episode's disk limit is cancelled as it writes.
    const unwatchDisk =
      watchDisk?.(() => {
        if (stopped === null) stop('disk');
      }) ?? (() => undefined);
    timers.push(
      setTimeout(() => stop('timeout'), timing.timeoutMs + timing.graceMs),
      // A statement that ignores the cancel (some C code does not check for interrupts) loses its connection.
      setTimeout(() => stopper.terminate(processId).catch(() => undefined), timing.timeoutMs + timing.graceMs + 10_000),
    );
    client.query(statement as unknown as pg.QueryConfig);
  });
}
