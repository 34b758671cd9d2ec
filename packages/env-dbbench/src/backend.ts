import type { PythonValue } from './python-text.js';
import type { DbbenchTask } from './records.js';

/** The SQL dialect a backend speaks; decides how gold SQL is made to run and how names are quoted. */
export type SqlDialect = 'postgres' | 'mysql';

/** A column of a result. The backend has already turned each cell into the value Python would print. */
export interface ResultColumn {
  name: string;
}

/** Why a result was cut short: more rows, or more bytes, than an episode may fetch. */
export interface ResultTruncation {
  limit: 'rows' | 'bytes';
  /** Rows fetched and shown. */
  keptRows: number;
}

/** The outcome of one statement: rows (possibly capped) or the engine's error. */
export type SqlOutcome =
  | { ok: true; columns: ResultColumn[]; rows: PythonValue[][]; truncated: ResultTruncation | null }
  | { ok: false; message: string; code?: string };

/** Limits every backend applies to the agent's statements. */
export interface SessionLimits {
  /**
   * A statement running longer is stopped (default 60 000 ms). PGlite stops it by restarting its engine,
   * which undoes the whole episode.
   */
  statementTimeoutMs?: number;
  /** Rows fetched per statement at most; the rest are not fetched (default 10 000). */
  maxRows?: number;
  /**
   * Bytes of cell text (UTF-8) fetched per statement at most (default 4 MiB). On a server, a single
   * row longer than this is skipped as it arrives, never held in memory.
   */
  maxResultBytes?: number;
  /**
   * Disk the episode's own tables may take, with their indexes and TOAST, temporary tables included
   * (default 256 MiB). Measured after every statement (on MySQL, every one that may write): one that
   * leaves more is undone, and when undone rows still hold the space (always on MySQL), the whole episode
   * is. On a server a statement that runs long is also measured while it writes, and stopped over the
   * limit; PostgreSQL's temporary files (sorts, hashes) are capped at it too when the backend's user is
   * a superuser.
   */
  maxEpisodeBytes?: number;
}

/** The defaults of `SessionLimits`. */
export const defaultSessionLimits: Required<SessionLimits> = {
  statementTimeoutMs: 60_000,
  maxRows: 10_000,
  maxResultBytes: 4 * 1024 * 1024,
  maxEpisodeBytes: 256 * 1024 * 1024,
};

/** One episode's connection to its own copy of the task's table. */
export interface DbbenchSession {
  /** Runs one statement. SQL errors are outcomes; a lost engine throws InfrastructureError. */
  execute(sql: string): Promise<SqlOutcome>;
  /**
   * The task table's rows, every original column as text, for the hash; or the error text when
   * the table or a column is gone (which the agent may have caused).
   */
  readTable(): Promise<{ rows: Array<Array<string | null>> } | { error: string }>;
  /** Undoes everything the episode did and releases the connection; safe to call twice. */
  close(): Promise<void>;
}

/** A SQL engine that gives each episode an isolated copy of its task's table. */
export interface DbbenchBackend {
  /** e.g. `pglite`, `postgres`, `mysql`. */
  readonly name: string;
  readonly dialect: SqlDialect;
  /**
   * Connects and prepares the engine; idempotent. Throws InfrastructureError (not retryable) with one
   * clear message when the server cannot be reached, so a run stops before its first episode.
   */
  start(): Promise<void>;
  openSession(task: DbbenchTask): Promise<DbbenchSession>;
  /** Episodes open right now (leased connections or engines), for leak checks. */
  sessionsInUse(): number;
  /** Closes every connection and removes everything the backend made on the server. */
  close(): Promise<void>;
}
