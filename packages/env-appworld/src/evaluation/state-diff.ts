import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Row } from '../world/rows.js';
import { bookkeepingTables } from '../world/schema.js';

/** One table's hash and its records' hashes, by primary key. */
export interface TableSnapshot {
  hash: string;
  records: Map<string, string>;
}

/** Every table's snapshot, for comparing two states. */
export type StateSnapshot = Map<string, TableSnapshot>;

/** A record that differs between two states. */
export interface RecordChange {
  table: string;
  /** The primary key values, as JSON. */
  key: string;
  kind: 'added' | 'removed' | 'updated';
  before: Row | null;
  after: Row | null;
}

const tableCache = new WeakMap<Database, Array<{ name: string; keyColumns: string[] }>>();

/** The world's tables (bookkeeping tables left out) with their primary key columns. */
export function tablesOf(db: Database): Array<{ name: string; keyColumns: string[] }> {
  const cached = tableCache.get(db);
  if (cached) return cached;
  const names = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
  )
    .map((row) => row.name)
    .filter((name) => !bookkeepingTables.includes(name));
  const tables = names.map((name) => {
    const columns = db.prepare(`PRAGMA table_info(${name})`).all() as Array<{ name: string; pk: number }>;
    const keyColumns = columns
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    return { name, keyColumns };
  });
  tableCache.set(db, tables);
  return tables;
}

const digest = (text: string): string => createHash('sha1').update(text).digest('base64');
const keyOf = (row: Row, keyColumns: readonly string[]): string =>
  JSON.stringify(keyColumns.map((column) => row[column]));

/** Hashes every record and every table of a state (or of the named tables only). */
export function snapshotState(db: Database, only?: readonly string[]): StateSnapshot {
  const snapshot: StateSnapshot = new Map();
  for (const { name, keyColumns } of tablesOf(db)) {
    if (only && !only.includes(name)) continue;
    const records = new Map<string, string>();
    const table = createHash('sha1');
    for (const row of db.prepare(`SELECT * FROM ${name} ORDER BY ${keyColumns.join(', ')}`).all() as Row[]) {
      const recordHash = digest(JSON.stringify(row));
      records.set(keyOf(row, keyColumns), recordHash);
      table.update(recordHash);
    }
    snapshot.set(name, { hash: table.digest('base64'), records });
  }
  return snapshot;
}

function rowByKey(db: Database, table: string, keyColumns: readonly string[], key: string): Row | null {
  const values = JSON.parse(key) as unknown[];
  const where = keyColumns.map((column) => `${column} = ?`).join(' AND ');
  return (db.prepare(`SELECT * FROM ${table} WHERE ${where}`).get(...values) as Row | undefined) ?? null;
}

/**
 * The records that differ between the state before the episode and after it, as AppWorld finds
 * them: tables whose hash is unchanged are skipped; in the others, records are compared by key and
 * hash. `written` limits the comparison to the tables that saw writes (see change-log.ts).
 */
export function diffStates(
  before: { snapshot: StateSnapshot; db: Database },
  after: Database,
  written?: readonly string[],
): RecordChange[] {
  const afterSnapshot = snapshotState(after, written);
  const changes: RecordChange[] = [];
  for (const { name, keyColumns } of tablesOf(after)) {
    const old = before.snapshot.get(name);
    const now = afterSnapshot.get(name);
    if (!old || !now || old.hash === now.hash) continue;
    for (const [key, hash] of now.records) {
      const previous = old.records.get(key);
      if (previous === hash) continue;
      changes.push({
        table: name,
        key,
        kind: previous === undefined ? 'added' : 'updated',
        before: previous === undefined ? null : rowByKey(before.db, name, keyColumns, key),
        after: rowByKey(after, name, keyColumns, key),
      });
    }
    for (const key of old.records.keys()) {
      if (!now.records.has(key)) {
        changes.push({
          table: name,
          key,
          kind: 'removed',
          before: rowByKey(before.db, name, keyColumns, key),
          after: null,
        });
      }
    }
  }
  return changes;
}
