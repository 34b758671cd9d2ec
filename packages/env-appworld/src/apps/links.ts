import type { Database } from 'better-sqlite3';
import { ApiError } from '../api/definition.js';
import { insertRow, oneRow, type Row, run } from '../world/rows.js';

/** `a = ? AND b = ?` over the key's columns (names from the app's code, never from a caller). */
const whereKey = (key: Row): string =>
  Object.keys(key)
    .map((column) => `${column} = ?`)
    .join(' AND ');

/**
 * Adds a row to a link table (a cart, a wishlist, a playlist's songs...): `key` names the link,
 * `rest` the rest of the row. A link that is already there is refused with 409 and `alreadyThere`.
 */
export function addLink(db: Database, table: string, key: Row, rest: Row, alreadyThere: string): void {
  if (oneRow(db, `SELECT 1 FROM ${table} WHERE ${whereKey(key)}`, ...Object.values(key))) {
    throw new ApiError(409, alreadyThere);
  }
  insertRow(db, table, { ...key, ...rest });
}

/** Removes the link that `key` names from a link table; one that is not there is a 404 with `notThere`. */
export function removeLink(db: Database, table: string, key: Row, notThere: string): void {
  if (run(db, `DELETE FROM ${table} WHERE ${whereKey(key)}`, ...Object.values(key)) === 0) {
    throw new ApiError(404, notThere);
  }
}
