import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { allRows, oneRow } from '../world/rows.js';
import type { Supervisor } from './types.js';

/** A person as tasks need them. */
export interface PersonFacts extends Supervisor {
  id: number;
}

/** The person with this id. */
export function person(db: Database, id: number): PersonFacts {
  const row = oneRow<PersonFacts>(
    db,
    'SELECT id, first_name, last_name, email, phone_number FROM people WHERE id = ?',
    id,
  );
  if (!row) throw new RangeError(`no person ${id}`);
  return row;
}

/**
 * `count` different people for a scenario's variants, in an order derived from the scenario's
 * name (so scenarios use different people), each satisfying `fits`.
 */
export function pickPeople(
  db: Database,
  salt: string,
  count: number,
  fits: (id: number) => boolean = () => true,
): number[] {
  const ids = allRows<{ id: number }>(db, 'SELECT id FROM people ORDER BY id').map((row) => row.id);
  const rank = (id: number) => createHash('sha256').update(`${salt}:${id}`).digest('hex');
  const chosen = ids
    .sort((a, b) => rank(a).localeCompare(rank(b)))
    .filter(fits)
    .slice(0, count);
  if (chosen.length < count) throw new RangeError(`scenario ${salt}: only ${chosen.length} people fit, need ${count}`);
  return chosen;
}

/** Deterministic choice among items, by a salt. */
export function choose<T>(items: readonly T[], salt: string): T {
  if (items.length === 0) throw new RangeError(`nothing to choose from (${salt})`);
  const index = createHash('sha256').update(salt).digest().readUInt32LE(0) % items.length;
  return items[index] as T;
}

/** A JavaScript string literal of a value (for embedding into plan code). */
export const literal = (value: string | number): string =>
  typeof value === 'number' ? String(value) : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Today's date of the world clock as `YYYY-MM-DD`. */
export const dateOf = (timestamp: string): string => timestamp.slice(0, 10);

/** A contact of a person with a given relationship (the first by name, when several). */
export function contactsOf(db: Database, userId: number, relationship?: string) {
  return allRows<{
    id: number;
    first_name: string;
    last_name: string;
    email: string;
    phone_number: string;
    relationship: string;
  }>(
    db,
    `SELECT * FROM phone_contacts WHERE user_id = ? AND (? IS NULL OR relationship = ?) ORDER BY last_name, first_name, id`,
    userId,
    relationship ?? null,
    relationship ?? null,
  );
}
