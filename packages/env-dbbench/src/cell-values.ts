/**
 * Result cells as AgentBench's Python driver (mysql-connector) hands them to `str()`: integers as
 * int, DOUBLE as float, DECIMAL as `Decimal('...')`, DATE / DATETIME / TIME as `datetime` objects,
 * text as str. Each backend names the kind of every column from its engine's type; the raw value is
 * the engine's text (servers) or the driver's parsed value (PGlite), and both give the same result.
 */
import { PyBytes, PyDate, PyDateTime, PyDecimal, PyFloat, PyTimedelta, type PythonValue } from './python-text.js';

/** How a column's values print in Python. */
export type CellKind = 'int' | 'float' | 'decimal' | 'bool' | 'text' | 'date' | 'datetime' | 'time' | 'bytes' | 'other';

const postgresKinds: Record<number, CellKind> = {
  16: 'bool',
  17: 'bytes',
  18: 'text',
  19: 'text',
  20: 'int',
  21: 'int',
  23: 'int',
  25: 'text',
  26: 'int',
  700: 'float',
  701: 'float',
  705: 'text',
  1042: 'text',
  1043: 'text',
  1082: 'date',
  1083: 'time',
  1114: 'datetime',
  1184: 'datetime',
  1266: 'time',
  1700: 'decimal',
};

/** The kind of a PostgreSQL column from its type OID. */
export function postgresCellKind(typeOid: number): CellKind {
  return postgresKinds[typeOid] ?? 'other';
}

/** MySQL protocol column types (`MYSQL_TYPE_*`). */
const mysqlKinds: Record<number, CellKind> = {
  0: 'decimal',
  1: 'int',
  2: 'int',
  3: 'int',
  4: 'float',
  5: 'float',
  7: 'datetime',
  8: 'int',
  9: 'int',
  10: 'date',
  11: 'time',
  12: 'datetime',
  13: 'int',
  14: 'date',
  16: 'int',
  246: 'decimal',
};

/** MySQL's character set number of binary strings. */
const binaryCharacterSet = 63;

/** The kind of a MySQL column from its protocol type and character set. */
export function mysqlCellKind(columnType: number, characterSet: number): CellKind {
  const kind = mysqlKinds[columnType];
  if (kind) return kind;
  // VARCHAR, VAR_STRING, STRING, ENUM, SET, JSON and the BLOB types: text unless the charset is binary.
  if ([15, 245, 247, 248, 249, 250, 251, 252, 253, 254].includes(columnType)) {
    return characterSet === binaryCharacterSet ? 'bytes' : 'text';
  }
  // NULL (6), GEOMETRY (255) and anything newer.
  return columnType === 255 ? 'bytes' : 'other';
}

/** `-12:34:56.5` (MySQL TIME, hours may exceed 24) as microseconds. */
function timeMicroseconds(text: string): bigint | null {
  const match = /^(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(text);
  if (!match) return null;
  const [, minus, hours, minutes, seconds, fraction] = match;
  const total =
    ((BigInt(hours ?? '0') * 60n + BigInt(minutes ?? '0')) * 60n + BigInt(seconds ?? '0')) * 1_000_000n +
    BigInt((fraction ?? '').padEnd(6, '0'));
  return minus ? -total : total;
}

/** PostgreSQL's text form of bytea (`\x0a1b`), or the driver's bytes. */
function bytesOf(raw: unknown): Uint8Array {
  if (raw instanceof Uint8Array) return raw;
  const text = String(raw);
  if (text.startsWith('\\x')) return Uint8Array.from(Buffer.from(text.slice(2), 'hex'));
  return Uint8Array.from(Buffer.from(text, 'utf8'));
}

/** A zero date (`0000-00-00`), which MySQL drivers return as None. */
const isZeroDate = (text: string): boolean => /^0000-00-00/.test(text);

/** One cell as the Python value AgentBench would have printed. */
export function toPythonValue(kind: CellKind, raw: unknown): PythonValue {
  if (raw === null || raw === undefined) return null;
  switch (kind) {
    case 'int':
      if (typeof raw === 'number' || typeof raw === 'bigint') return raw;
      // MySQL BIT values arrive as big-endian bytes; Python drivers return them as int.
      if (raw instanceof Uint8Array) return raw.reduce((total, byte) => total * 256n + BigInt(byte), 0n);
      return /^-?\d+$/.test(String(raw)) ? BigInt(String(raw)) : String(raw);
    case 'float':
      return new PyFloat(typeof raw === 'number' ? raw : Number(raw));
    case 'decimal':
      return new PyDecimal(String(raw));
    case 'bool':
      return raw === true || raw === 't' || raw === '1' || raw === 1;
    case 'date': {
      const text = raw instanceof Date ? raw.toISOString() : String(raw);
      if (isZeroDate(text)) return null;
      return /^\d{4}-\d{2}-\d{2}/.test(text) ? new PyDate(text.slice(0, 10)) : text;
    }
    case 'datetime': {
      if (raw instanceof Date) return raw;
      const text = String(raw);
      return isZeroDate(text) ? null : new PyDateTime(text);
    }
    case 'time': {
      const microseconds = timeMicroseconds(String(raw));
      return microseconds === null ? String(raw) : new PyTimedelta(microseconds);
    }
    case 'bytes':
      return new PyBytes(bytesOf(raw));
    case 'text':
      return typeof raw === 'string'
        ? raw
        : raw instanceof Uint8Array
          ? Buffer.from(raw).toString('utf8')
          : String(raw);
    default:
      if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean')
        return raw;
      return JSON.stringify(raw) ?? String(raw);
  }
}

/** Size of a cell as fetched (text in UTF-8, as the server sends it), for the per-statement byte cap. */
export function cellBytes(raw: unknown): number {
  if (raw === null || raw === undefined) return 1;
  if (typeof raw === 'string') return Buffer.byteLength(raw, 'utf8');
  if (raw instanceof Uint8Array) return raw.byteLength;
  return 8;
}
