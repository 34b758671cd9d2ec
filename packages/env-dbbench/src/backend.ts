import type { DbbenchTask } from './records.js';

/** The SQL dialect a backend speaks; decides how gold SQL is made to run and how names are quoted. */
export type SqlDialect = 'postgres' | 'mysql';

/** A column of a result, with the engine's type where it matters for printing. */
export interface ResultColumn {
  name: string;
  /** How the value prints in Python text: `int`, `float`, `decimal`, `text`, `bool`, `other`. */
  kind: 'int' | 'float' | 'decimal' | 'text' | 'bool' | 'other';
}

/** The outcome of one statement: rows (possibly capped) or the engine's error. */
export type SqlOutcome =
  | { ok: true; columns: ResultColumn[]; rows: unknown[][]; truncatedRows: number }
  | { ok: false; message: string; code?: string };

/** One episode's connection to its own copy of the task's table. */
export interface DbbenchSession {
  /** Runs one statement. SQL errors are outcomes; a lost engine throws InfrastructureError. */
  execute(sql: string): Promise<SqlOutcome>;
  /**
   * The task table's rows, every original column as text, for the hash; or the error text when
   * the table or a column is gone (which the agent may have caused).
   */
  readTable(): Promise<{ rows: Array<Array<string | null>> } | { error: string }>;
  /** Drops everything the episode made and releases the connection; safe to call twice. */
  close(): Promise<void>;
}

/** A SQL engine that gives each episode an isolated copy of its task's table. */
export interface DbbenchBackend {
  /** e.g. `pglite`. */
  readonly name: string;
  readonly dialect: SqlDialect;
  openSession(task: DbbenchTask): Promise<DbbenchSession>;
  close(): Promise<void>;
}
