/**
 * Python text forms of fetched values as AgentBench's DBBench prints them: `str(cursor.fetchall())`
 * for observations and hash results (final answers are read by `python-literal.ts`). Everything is
 * pure and engine-independent; the expected values in the tests were produced by CPython 3.11.
 */

/** A DECIMAL column value, kept as the engine's text so `Decimal('2.50')` keeps its trailing zeros. */
export class PyDecimal {
  constructor(readonly text: string) {}
}

/** A value the engine reports as a float (DOUBLE, FLOAT, SUM over text): 3 prints as `3.0`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A DATE column value from its ISO text `2020-01-02`, printed as `datetime.date(2020, 1, 2)`. */
export class PyDate {
  constructor(readonly isoDate: string) {}
}

/**
 * A DATETIME/TIMESTAMP value from its text `2020-01-02 03:04:05[.ffffff]`, printed as
 * `datetime.datetime(2020, 1, 2, 3, 4, 5)` with every microsecond kept (a JS Date keeps milliseconds).
 */
export class PyDateTime {
  constructor(readonly text: string) {}
}

/** A TIME value (MySQL drivers return `datetime.timedelta`), as a signed count of microseconds. */
export class PyTimedelta {
  constructor(readonly microseconds: bigint) {}
}

/** A binary string value, printed as Python `bytes`. */
export class PyBytes {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * Values `formatPythonValue` understands. Plain numbers print as int when integral, else as float;
 * booleans print as 1/0 because MySQL has no boolean type (TRUE is TINYINT 1); a JS Date prints as
 * `datetime.datetime(...)` from its UTC fields.
 */
export type PythonValue =
  | null
  | undefined
  | string
  | number
  | bigint
  | boolean
  | PyDecimal
  | PyFloat
  | PyDate
  | PyDateTime
  | PyTimedelta
  | PyBytes
  | Date;

/** Characters Python's `str.isprintable()` rejects: categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs except space. */
const NON_PRINTABLE = /^(?:\p{C}|\p{Z})$/u;

function hexEscape(prefix: string, codePoint: number, width: number): string {
  return `\\${prefix}${codePoint.toString(16).padStart(width, '0')}`;
}

/** Python 3 `repr(str)`: quote choice and escapes as CPython's unicode_repr. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (character === quote || character === '\\') body += `\\${character}`;
    else if (character === '\t') body += '\\t';
    else if (character === '\n') body += '\\n';
    else if (character === '\r') body += '\\r';
    else if (codePoint < 0x20 || codePoint === 0x7f) body += hexEscape('x', codePoint, 2);
    else if (codePoint < 0x7f || character === ' ' || !NON_PRINTABLE.test(character)) body += character;
    else if (codePoint <= 0xff) body += hexEscape('x', codePoint, 2);
    else if (codePoint <= 0xffff) body += hexEscape('u', codePoint, 4);
    else body += hexEscape('U', codePoint, 8);
  }
  return `${quote}${body}${quote}`;
}

/**
 * Python `repr(float)`: the shortest round-trip digits (JS and Python agree on those), laid out the
 * Python way: exponent form when the decimal exponent is < -4 or >= 16, with a signed two-digit exponent.
 */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const pointPosition = exponent + 1;
  if (pointPosition <= -4 || pointPosition > 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const exponentSign = exponent < 0 ? '-' : '+';
    return `${sign}${digits[0]}${fraction}e${exponentSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (pointPosition <= 0) return `${sign}0.${'0'.repeat(-pointPosition)}${digits}`;
  if (pointPosition >= digits.length) return `${sign}${digits}${'0'.repeat(pointPosition - digits.length)}.0`;
  return `${sign}${digits.slice(0, pointPosition)}.${digits.slice(pointPosition)}`;
}

function dateTimeRepr(date: Date): string {
  const fields = [
    date.getUTCFullYear(),
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
  ];
  const seconds = date.getUTCSeconds();
  const microseconds = date.getUTCMilliseconds() * 1000;
  // Python omits seconds and microseconds when they are zero, but always shows hour and minute.
  if (seconds !== 0 || microseconds !== 0) fields.push(seconds);
  if (microseconds !== 0) fields.push(microseconds);
  return `datetime.datetime(${fields.join(', ')})`;
}

/** `datetime.datetime(...)` from `YYYY-MM-DD HH:MM:SS[.ffffff]` (a `T` separator or an offset after it is ignored). */
function dateTimeTextRepr(text: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(text);
  if (!match) return pythonStringRepr(text);
  const [, year, month, day, hour, minute, second, fraction] = match;
  const fields = [year, month, day, hour, minute].map(Number);
  const seconds = Number(second);
  const microseconds = fraction ? Number(fraction.padEnd(6, '0')) : 0;
  if (seconds !== 0 || microseconds !== 0) fields.push(seconds);
  if (microseconds !== 0) fields.push(microseconds);
  return `datetime.datetime(${fields.join(', ')})`;
}

/** Python `repr(timedelta)`: normalised to days, 0 <= seconds < 86400, 0 <= microseconds < 10**6. */
function timedeltaRepr(total: bigint): string {
  const perDay = 86_400_000_000n;
  // Floor division, as Python normalises negative durations: -1 s is days=-1, seconds=86399.
  let days = total / perDay;
  if (total % perDay < 0n) days -= 1n;
  const rest = total - days * perDay;
  const seconds = rest / 1_000_000n;
  const microseconds = rest % 1_000_000n;
  const parts = [
    ...(days !== 0n ? [`days=${days}`] : []),
    ...(seconds !== 0n ? [`seconds=${seconds}`] : []),
    ...(microseconds !== 0n ? [`microseconds=${microseconds}`] : []),
  ];
  return `datetime.timedelta(${parts.length > 0 ? parts.join(', ') : '0'})`;
}

/** Python `repr(bytes)`: printable ASCII as is, the rest as escapes; quotes chosen as for str. */
function bytesRepr(bytes: Uint8Array): string {
  const hasSingle = bytes.includes(0x27);
  const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'";
  let body = '';
  for (const byte of bytes) {
    const character = String.fromCharCode(byte);
    if (character === quote || character === '\\') body += `\\${character}`;
    else if (byte === 0x09) body += '\\t';
    else if (byte === 0x0a) body += '\\n';
    else if (byte === 0x0d) body += '\\r';
    else if (byte < 0x20 || byte >= 0x7f) body += `\\x${byte.toString(16).padStart(2, '0')}`;
    else body += character;
  }
  return `b${quote}${body}${quote}`;
}

/** Python `repr()` of one fetched cell, as mysql-connector/pymysql would hand it to `str()`. */
export function formatPythonValue(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return pythonStringRepr(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(0) : pythonFloatRepr(value);
  if (value instanceof PyFloat) return pythonFloatRepr(value.value);
  if (value instanceof PyDecimal) return `Decimal('${value.text}')`;
  if (value instanceof PyDate) return `datetime.date(${value.isoDate.split('-').map(Number).join(', ')})`;
  if (value instanceof PyDateTime) return dateTimeTextRepr(value.text);
  if (value instanceof PyTimedelta) return timedeltaRepr(value.microseconds);
  if (value instanceof PyBytes) return bytesRepr(value.bytes);
  if (value instanceof Date) return dateTimeRepr(value);
  // Anything else (JSON columns, arrays) has no Python driver equivalent: show its JSON text as a str.
  return pythonStringRepr(JSON.stringify(value) ?? String(value));
}

/** `str(cursor.fetchall())`: a list of tuples, e.g. `[('a', 'b'), ('c',)]`; `[]` when there are no rows. */
export function formatPythonRows(rows: unknown[][]): string {
  return `[${rows.map((row) => tupleText(row.map(formatPythonValue))).join(', ')}]`;
}

/** A tuple from its items' reprs: a one-item tuple needs its trailing comma. */
export function tupleText(items: string[]): string {
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}
