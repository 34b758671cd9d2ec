/**
 * Python literals as AgentBench's DBBench scores them: `eval(answer)` of a final answer, and the
 * `repr()` / `str()` of what it evaluated to. Pure and engine-independent; the expected values in the
 * tests were produced by CPython 3.11.
 */
import { pythonFloatRepr, pythonStringRepr, tupleText } from './python-text.js';

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
