/**
 * A small PostgreSQL lexer, for screening statements (pglite-policy.ts): it tells words from string
 * literals, quoted identifiers and comments as PostgreSQL does, which the MySQL lexer does not
 * (dollar quoting, nested block comments, `--` without a space, `E'...'` strings, identifiers with `$`).
 */

/** What a PostgreSQL token is. */
export type PostgresTokenKind =
  | 'word'
  | 'quoted-identifier'
  /** Any string literal: `'...'`, `E'...'`, `B'...'`, `X'...'`, `N'...'`, `U&'...'` or dollar-quoted. */
  | 'string'
  | 'number'
  /** `$1` */
  | 'parameter'
  /** One operator character, or punctuation. */
  | 'symbol'
  | 'comment'
  | 'whitespace';

/** One token of PostgreSQL SQL. */
export interface PostgresToken {
  readonly kind: PostgresTokenKind;
  readonly text: string;
  /** The name inside a quoted identifier; otherwise the text. */
  readonly value: string;
  /** A `U&` string or identifier, whose escapes name characters by their code. */
  readonly unicodeEscapes?: boolean;
}

/** How plain `'...'` strings read: with `standard_conforming_strings` off, backslash escapes too. */
export interface PostgresLexOptions {
  backslashEscapes?: boolean;
}

// PostgreSQL takes every non-ASCII character as part of an identifier.
const identifierStart = /[A-Za-z_\u0080-\uffff]/;
const identifierPart = /[A-Za-z0-9_$\u0080-\uffff]/;
const whitespace = /[ \t\n\r\f\v]/;

/** Splits PostgreSQL SQL into tokens; never throws. Concatenating the tokens' text gives the input. */
export function tokenizePostgres(sql: string, options: PostgresLexOptions = {}): PostgresToken[] {
  const tokens: PostgresToken[] = [];
  let position = 0;
  const push = (kind: PostgresTokenKind, end: number, extra: Partial<PostgresToken> = {}): void => {
    const text = sql.slice(position, end);
    tokens.push({ kind, text, value: text, ...extra });
    position = end;
  };
  while (position < sql.length) {
    const character = sql.charAt(position);
    const next = sql.charAt(position + 1);
    if (whitespace.test(character)) {
      let end = position + 1;
      while (end < sql.length && whitespace.test(sql.charAt(end))) end += 1;
      push('whitespace', end);
    } else if (character === '-' && next === '-') {
      const newline = sql.slice(position).search(/[\n\r]/);
      push('comment', newline === -1 ? sql.length : position + newline);
    } else if (character === '/' && next === '*') {
      push('comment', blockCommentEnd(sql, position));
    } else if (character === "'") {
      push('string', quotedEnd(sql, position, "'", options.backslashEscapes ?? false));
    } else if (character === '"') {
      const end = quotedEnd(sql, position, '"', false);
      push('quoted-identifier', end, { value: sql.slice(position + 1, end - 1).replaceAll('""', '"') });
    } else if (character === '$' && /[0-9]/.test(next)) {
      let end = position + 1;
      while (/[0-9]/.test(sql.charAt(end))) end += 1;
      push('parameter', end);
    } else if (character === '$') {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(position))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, position + tag.length);
        push('string', close === -1 ? sql.length : close + tag.length);
      } else {
        push('symbol', position + 1);
      }
    } else if (/[uU]/.test(character) && next === '&' && /['"]/.test(sql.charAt(position + 2))) {
      const quote = sql.charAt(position + 2);
      push(quote === "'" ? 'string' : 'quoted-identifier', quotedEnd(sql, position + 2, quote, false), {
        unicodeEscapes: true,
      });
    } else if (/[eEbBxXnN]/.test(character) && next === "'") {
      push('string', quotedEnd(sql, position + 1, "'", /[eE]/.test(character) || (options.backslashEscapes ?? false)));
    } else if (identifierStart.test(character)) {
      let end = position + 1;
      while (end < sql.length && identifierPart.test(sql.charAt(end))) end += 1;
      push('word', end);
    } else if (/[0-9]/.test(character) || (character === '.' && /[0-9]/.test(next))) {
      push('number', position + (/^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(sql.slice(position))?.[0].length ?? 1));
    } else {
      push('symbol', position + 1);
    }
  }
  return tokens;
}

/** End (exclusive) of a block comment at `start`; PostgreSQL's block comments nest. */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let position = start;
  while (position < sql.length) {
    if (sql.startsWith('/*', position)) {
      depth += 1;
      position += 2;
    } else if (sql.startsWith('*/', position)) {
      depth -= 1;
      position += 2;
      if (depth === 0) return position;
    } else {
      position += 1;
    }
  }
  return sql.length;
}

/** End (exclusive) of a quoted token whose opening quote is at `start`; a doubled quote is one quote. */
function quotedEnd(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let position = start + 1;
  while (position < sql.length) {
    const character = sql.charAt(position);
    if (backslashEscapes && character === '\\') position += 2;
    else if (character !== quote) position += 1;
    else if (sql.charAt(position + 1) === quote) position += 2;
    else return position + 1;
  }
  return sql.length;
}

/**
 * The first reason `screen` gives for a statement's significant tokens (comments and whitespace
 * left out) as PostgreSQL reads it with backslash escapes in plain strings or without (the agent may
 * switch `standard_conforming_strings`), or null: either reading is enough to refuse.
 */
export function screenEitherReading(sql: string, screen: (tokens: PostgresToken[]) => string | null): string | null {
  for (const backslashEscapes of [false, true]) {
    const tokens = tokenizePostgres(sql, { backslashEscapes }).filter(
      (token) => token.kind !== 'whitespace' && token.kind !== 'comment',
    );
    const reason = screen(tokens);
    if (reason) return reason;
  }
  return null;
}
