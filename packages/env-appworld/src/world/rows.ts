import type { Database, Statement } from 'better-sqlite3';

/** A database row as plain values. */
export type Row = Record<string, string | number | null>;

const statements = new WeakMap<Database, Map<string, Statement>>();

/** A prepared statement, cached per database so API calls do not re-parse their SQL. */
export function prepared(db: Database, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) {
    cache = new Map();
    statements.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** Inserts one row and returns its rowid. */
export function insertRow(db: Database, table: string, row: Row): number {
  const columns = Object.keys(row);
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`;
  return Number(prepared(db, sql).run(row).lastInsertRowid);
}

/** Runs a write statement; returns the number of rows changed. */
export function run(db: Database, sql: string, ...parameters: unknown[]): number {
  return prepared(db, sql).run(...parameters).changes;
}

/** All rows of a query, typed by the caller (the schema guarantees the shape). */
export function allRows<T = Row>(db: Database, sql: string, ...parameters: unknown[]): T[] {
  return prepared(db, sql).all(...parameters) as T[];
}

/** The first row of a query, or undefined. */
export function oneRow<T = Row>(db: Database, sql: string, ...parameters: unknown[]): T | undefined {
  return prepared(db, sql).get(...parameters) as T | undefined;
}
