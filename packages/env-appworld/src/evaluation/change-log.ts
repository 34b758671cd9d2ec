import type { Database } from 'better-sqlite3';
import { tablesOf } from './state-diff.js';

/** The bookkeeping table that names every table written since the initial state. */
export const changeLogTable = 'changed_tables';

/**
 * Installs triggers that record which tables any INSERT, UPDATE or DELETE touched, so evaluation
 * hashes only those tables (a whole-world hash costs tens of milliseconds, the touched tables one
 * or two). Tables without a record here provably saw no write, so they equal the initial state.
 */
export function installChangeLog(db: Database): void {
  db.exec(`CREATE TABLE ${changeLogTable} (name TEXT PRIMARY KEY)`);
  for (const { name } of tablesOf(db)) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      db.exec(
        `CREATE TRIGGER log_${event.toLowerCase()}_${name} AFTER ${event} ON ${name}
         BEGIN INSERT OR IGNORE INTO ${changeLogTable} (name) VALUES ('${name}'); END`,
      );
    }
  }
}

/** The tables written since the change log was installed. */
export function changedTables(db: Database): string[] {
  return (db.prepare(`SELECT name FROM ${changeLogTable} ORDER BY name`).all() as Array<{ name: string }>).map(
    (row) => row.name,
  );
}
