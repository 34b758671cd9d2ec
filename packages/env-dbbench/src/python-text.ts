/**
 * Python text forms as AgentBench's DBBench sees them: `str(cursor.fetchall())` for observations and
 * hash results, and `eval(answer)` / `float(x)` for scoring final answers. Everything is pure and
 * engine-independent; the expected values in the tests were produced by CPython 3.11.
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
function tupleText(items: string[]): string {
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}

/**
 * The result of evaluating a Python literal, keeping the Python types that scoring depends on:
 * ints are bigints (Python ints are unbounded, and `1 == 1.0` must compare exactly), floats are numbers.
 */
export type PythonLiteral =
  | { type: 'list'; items: PythonLiteral[] }
  | { type: 'tuple'; items: PythonLiteral[] }
  | { type: 'str'; value: string }
  | { type: 'int'; value: bigint }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'none' };

/** Thrown for text outside the supported literal subset; the caller treats it like Python's exception. */
export class PythonLiteralError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'PythonLiteralError';
  }
}

/** Python `repr()` of a parsed literal. */
export function pythonLiteralRepr(literal: PythonLiteral): string {
  if (literal.type === 'list') return `[${literal.items.map(pythonLiteralRepr).join(', ')}]`;
  if (literal.type === 'tuple') return tupleText(literal.items.map(pythonLiteralRepr));
  if (literal.type === 'str') return pythonStringRepr(literal.value);
  if (literal.type === 'float') return pythonFloatRepr(literal.value);
  if (literal.type === 'int') return literal.value.toString();
  if (literal.type === 'bool') return literal.value ? 'True' : 'False';
  return 'None';
}

/** Python `str()`: the text itself for a str, `repr()` for everything else. */
export function pythonLiteralStr(literal: PythonLiteral): string {
  return literal.type === 'str' ? literal.value : pythonLiteralRepr(literal);
}

/** Python number literals: digits may be separated by single underscores. */
const INTEGER_PATTERN = /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0(?:_?0)*/y;
const FLOAT_PATTERN =
  /(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.)(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*[eE][+-]?\d(?:_?\d)*/y;
const STRING_START_PATTERN = /([A-Za-z]{0,2})(['"])/y;
const COMMENT_PATTERN = /#[^\r\n]*/y;
const IDENTIFIER_PATTERN = /[\p{ID_Start}_]\p{ID_Continue}*/uy;
/** Single-character escapes: the letter after the backslash and the character it stands for, by index. */
const ESCAPE_LETTERS = '\\\'"abfnrtv';
const ESCAPE_VALUES = '\\\'"\x07\b\f\n\r\t\v';

/** Recursive-descent reader for the literal subset documented on `parsePythonLiteral`. */
class LiteralReader {
  private position = 0;
  /** Bracket nesting: Python joins lines inside brackets, while a newline at depth 0 ends the expression. */
  private depth = 0;

  constructor(private readonly text: string) {}

  readTop(): PythonLiteral {
    this.skipSpace();
    if (this.atEnd()) throw this.error('empty expression');
    return this.readGroup(undefined);
  }

  /** After `(`, or at top level when `close` is undefined (end of text): `x` is x itself, a comma makes a tuple. */
  private readGroup(close: string | undefined): PythonLiteral {
    this.skipSpace();
    if (this.text[this.position] === close) return { type: 'tuple', items: this.readItems(close) };
    const first = this.readExpression();
    this.skipSpace();
    if (this.text[this.position] === close) {
      this.readItems(close); // consumes the closing bracket
      return first;
    }
    this.expect(',');
    return { type: 'tuple', items: [first, ...this.readItems(close)] };
  }

  private readExpression(): PythonLiteral {
    this.skipSpace();
    const character = this.text[this.position];
    if (character === undefined) throw this.error('unexpected end of text');
    if (character === '[' || character === '(') {
      this.position += 1;
      this.depth += 1;
      return character === '[' ? { type: 'list', items: this.readItems(']') } : this.readGroup(')');
    }
    if (character === '-' || character === '+') return this.readUnary(character);
    if (this.matchAt(STRING_START_PATTERN)) return this.readStrings();
    if (/[0-9]/.test(character) || (character === '.' && /[0-9]/.test(this.text[this.position + 1] ?? ''))) {
      return this.readNumber();
    }
    const name = this.matchAt(IDENTIFIER_PATTERN)?.[0];
    if (name === 'None') return this.advance(4, { type: 'none' });
    if (name === 'True' || name === 'False') return this.advance(name.length, { type: 'bool', value: name === 'True' });
    throw this.error(name === undefined ? `unexpected ${JSON.stringify(character)}` : `name '${name}' is not defined`);
  }

  /** Comma-separated items up to and including `close` (undefined: end of text); trailing comma allowed. */
  private readItems(close: string | undefined): PythonLiteral[] {
    const items: PythonLiteral[] = [];
    for (;;) {
      this.skipSpace();
      if (this.text[this.position] === close) {
        this.position += 1;
        this.depth -= 1;
        return items;
      }
      items.push(this.readExpression());
      this.skipSpace();
      if (this.text[this.position] !== close) this.expect(',');
    }
  }

  private readUnary(operator: string): PythonLiteral {
    const operatorPosition = this.position;
    this.position += 1;
    const operand = this.readExpression();
    const sign = operator === '-' ? -1 : 1;
    if (operand.type === 'float') return { type: 'float', value: sign * operand.value };
    if (operand.type === 'int') return { type: 'int', value: BigInt(sign) * operand.value };
    // Unary minus/plus on a bool gives an int (-True == -1).
    if (operand.type === 'bool') return { type: 'int', value: BigInt(sign) * (operand.value ? 1n : 0n) };
    throw new PythonLiteralError(`bad operand type for unary ${operator}`, operatorPosition);
  }

  private readNumber(): PythonLiteral {
    const float = this.matchAt(FLOAT_PATTERN)?.[0];
    const integer = float === undefined ? this.matchAt(INTEGER_PATTERN)?.[0] : undefined;
    const literal = float ?? integer ?? '';
    const next = this.text[this.position + literal.length] ?? '';
    // `0777`, `1j`, `1.5.3`, `1__0`: Python rejects these, or (`1j`) builds a type we do not model.
    if (literal === '' || /[\p{ID_Continue}.]/u.test(next)) throw this.error('unsupported number');
    this.position += literal.length;
    const digits = literal.replaceAll('_', '');
    return float !== undefined ? { type: 'float', value: Number(digits) } : { type: 'int', value: BigInt(digits) };
  }

  /** One or more adjacent string literals, concatenated as Python's parser does. */
  private readStrings(): PythonLiteral {
    let value = '';
    do {
      value += this.readString();
      this.skipSpace();
    } while (this.matchAt(STRING_START_PATTERN));
    return { type: 'str', value };
  }

  private readString(): string {
    const start = this.matchAt(STRING_START_PATTERN);
    const prefix = (start?.[1] ?? '').toLowerCase();
    const quote = start?.[2] ?? "'";
    // Bytes and f-strings evaluate to other types or run code: outside the safe subset.
    if (!['', 'u', 'r'].includes(prefix)) throw this.error(`unsupported string prefix '${prefix}'`);
    this.position += prefix.length;
    const delimiter = this.text.startsWith(quote.repeat(3), this.position) ? quote.repeat(3) : quote;
    this.position += delimiter.length;
    let value = '';
    for (;;) {
      const character = this.text[this.position];
      const lineBreak = character === '\n' || character === '\r';
      if (character === undefined || (lineBreak && delimiter.length === 1)) throw this.error('unterminated string');
      if (this.text.startsWith(delimiter, this.position)) return this.advance(delimiter.length, value);
      if (character !== '\\') value += this.advance(1, character);
      // Raw strings keep the backslash, but it still stops the next character from closing the string.
      else if (prefix === 'r') value += this.advance(2, this.text.slice(this.position, this.position + 2));
      else value += this.readEscape();
    }
  }

  private readEscape(): string {
    const next = this.text[this.position + 1] ?? '';
    const letterIndex = next === '' ? -1 : ESCAPE_LETTERS.indexOf(next);
    if (letterIndex !== -1) return this.advance(2, ESCAPE_VALUES[letterIndex] ?? '');
    if (next === '\n') return this.advance(2, '');
    if (next === '\r') return this.advance(this.text[this.position + 2] === '\n' ? 3 : 2, '');
    const octal = /^[0-7]{1,3}/.exec(this.text.slice(this.position + 1, this.position + 4))?.[0];
    if (octal !== undefined) return this.advance(1 + octal.length, String.fromCodePoint(Number.parseInt(octal, 8)));
    const hexWidth = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
    if (hexWidth === 0) {
      if (next === 'N') throw this.error('named unicode escapes are not supported');
      // Unknown escapes keep their backslash; the next character is then read normally.
      return this.advance(1, '\\');
    }
    const hex = this.text.slice(this.position + 2, this.position + 2 + hexWidth);
    const codePoint = new RegExp(`^[0-9a-fA-F]{${hexWidth}}$`).test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
    if (!(codePoint <= 0x10ffff)) throw this.error(`truncated \\${next} escape`);
    return this.advance(2 + hexWidth, String.fromCodePoint(codePoint));
  }

  private skipSpace(): void {
    while (this.position < this.text.length) {
      const character = this.text[this.position];
      const afterNext = this.text[this.position + 1];
      if (character === ' ' || character === '\t' || character === '\f') this.position += 1;
      else if (character === '#') this.position += this.matchAt(COMMENT_PATTERN)?.[0].length ?? 1;
      else if (character === '\\' && (afterNext === '\n' || afterNext === '\r')) {
        this.position += this.text.startsWith('\r\n', this.position + 1) ? 3 : 2;
      } else if ((character === '\n' || character === '\r') && this.depth > 0) this.position += 1;
      else if (character === '\n' || character === '\r') {
        // A newline outside brackets ends the expression: only blank lines and comments may follow.
        if (!/^(?:[ \t\f\r\n]|#[^\n]*)*$/.test(this.text.slice(this.position))) throw this.error('unexpected newline');
        this.position = this.text.length;
      } else return;
    }
  }

  private matchAt(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.position;
    return pattern.exec(this.text);
  }

  private advance<T>(length: number, result: T): T {
    this.position += length;
    return result;
  }

  private expect(character: string): void {
    if (this.text[this.position] !== character) throw this.error(`expected '${character}'`);
    this.position += 1;
  }

  private atEnd(): boolean {
    return this.position >= this.text.length;
  }

  private error(message: string): PythonLiteralError {
    return new PythonLiteralError(message, this.position);
  }
}

/**
 * Evaluates `text` as Python's `eval` would for literal answers: lists, tuples (`(x,)`, `()`, and
 * bare `a, b` at top level), str literals (single/double/triple quotes, `u`/`r` prefixes, all escapes
 * but `\N{...}`, adjacent literals concatenated), ints (decimal, hex, octal, binary, underscores),
 * floats (`1e3`, `.5`, `1.`), unary `-`/`+`, `None`, `True`, `False`, comments and trailing commas.
 * Throws `PythonLiteralError` for everything else (names, operators, calls, dicts, sets, bytes,
 * f-strings, unbalanced brackets): the callers treat that like the exception `eval` would raise.
 */
export function parsePythonLiteral(text: string): PythonLiteral {
  return new LiteralReader(text).readTop();
}
