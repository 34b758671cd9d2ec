/**
 * The MySQL language facts the dialect translator (mysql-dialect.ts) builds on: a small, lossless lexer,
 * what literals mean (backslash escapes, numbers stored as text), identifier quoting, reserved words and
 * keyword positions, and MySQL's comparison semantics written as PostgreSQL functions.
 *
 * The lexer is not a parser: it only splits text into tokens so that the translator can tell string
 * literals, quoted identifiers, bare words and numbers apart. Concatenating the `text` of every token
 * gives back the input exactly, so anything the translator does not understand passes through unchanged.
 */

/** What a token is. */
export type MysqlTokenKind =
  /** `'...'` or `"..."` (MySQL reads `"..."` as a string unless ANSI_QUOTES is on). */
  | 'string'
  /** `` `...` `` */
  | 'quoted-identifier'
  /** Keywords, unquoted identifiers, function names and `@variables`. */
  | 'word'
  /** Integer, decimal, exponent or hexadecimal literal (without sign: `-` is an operator). */
  | 'number'
  | 'operator'
  /** `(` `)` `,` `;` `.` */
  | 'punctuation'
  /** `-- ...`, `# ...` or a block comment. */
  | 'comment'
  | 'whitespace';

/** One token of MySQL SQL. */
export interface MysqlToken {
  readonly kind: MysqlTokenKind;
  /** The exact source text, quotes and escapes included. */
  readonly text: string;
  /**
   * The meaning of the token: the decoded content of a string literal, the name inside a quoted
   * identifier, otherwise the same as `text`.
   */
  readonly value: string;
  /** Offset of the token in the input. */
  readonly start: number;
  /** True for a string, quoted identifier or block comment whose closing delimiter is missing. */
  readonly unterminated?: boolean;
}

// Longest first, so that `<=>` is not read as `<=` followed by `>`.
const multiCharacterOperators = ['<=>', '->>', '<=', '>=', '<>', '!=', '||', '&&', ':=', '<<', '>>', '->'];
const singleCharacterOperators = new Set('=<>+-*/%!~^&|?:');
const punctuation = new Set('(),;.');

// MySQL allows ASCII letters, digits, `$`, `_` and any character from U+0080 in unquoted identifiers.
const identifierCharacter = /[\p{L}\p{N}_$\u0080-\uffff]/u;
const numberPattern = /^(?:0x[0-9a-f]+|0b[01]+|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/i;

/** The SQL modes that change where a quoted token ends. */
export interface MysqlLexOptions {
  /** Backslash escapes in quoted strings (default true; off under `NO_BACKSLASH_ESCAPES`). */
  backslashEscapes?: boolean;
  /** `"..."` is an identifier, without backslash escapes (`ANSI_QUOTES`; default false). */
  ansiQuotes?: boolean;
}

/** Splits MySQL SQL into tokens; never throws, and unknown characters become one-character operators. */
export function tokenizeMysql(sql: string, options: MysqlLexOptions = {}): MysqlToken[] {
  const backslashEscapes = options.backslashEscapes ?? true;
  const tokens: MysqlToken[] = [];
  let position = 0;
  const push = (kind: MysqlTokenKind, end: number, value?: string, unterminated?: boolean): void => {
    const text = sql.slice(position, end);
    tokens.push({ kind, text, value: value ?? text, start: position, ...(unterminated ? { unterminated } : {}) });
    position = end;
  };
  while (position < sql.length) {
    const character = sql.charAt(position);
    const rest = sql.slice(position);
    const whitespace = /^\s+/.exec(rest);
    if (whitespace) {
      push('whitespace', position + whitespace[0].length);
    } else if (character === "'" || (character === '"' && !options.ansiQuotes)) {
      const literal = scanQuoted(sql, position, character, backslashEscapes);
      push('string', literal.end, literal.value, literal.unterminated);
    } else if (character === '`' || character === '"') {
      const identifier = scanQuoted(sql, position, character, false);
      push('quoted-identifier', identifier.end, identifier.value, identifier.unterminated);
    } else if (character === '#' || (rest.startsWith('--') && !(rest.charCodeAt(2) > 32))) {
      // MySQL needs a space or control character after `--`; `1--1` is one minus minus one.
      const newline = sql.indexOf('\n', position);
      push('comment', newline === -1 ? sql.length : newline);
    } else if (rest.startsWith('/*')) {
      const close = sql.indexOf('*/', position + 2);
      push('comment', close === -1 ? sql.length : close + 2, undefined, close === -1);
    } else if (/[0-9]/.test(character) || (character === '.' && /^\.\d/.test(rest))) {
      const number = numberPattern.exec(rest)?.[0] ?? character;
      const after = sql.charAt(position + number.length);
      // `1abc` is an identifier in MySQL, not the number 1 followed by `abc`.
      if (after !== '' && identifierCharacter.test(after) && character !== '.') {
        push('word', scanWordEnd(sql, position));
      } else {
        push('number', position + number.length);
      }
    } else if (identifierCharacter.test(character) || character === '@') {
      // `@var` and `@@session.var` are user and system variables; keep the sigil with the name.
      const sigils = character === '@' ? (rest.startsWith('@@') ? 2 : 1) : 0;
      push('word', Math.max(scanWordEnd(sql, position + sigils), position + 1));
    } else if (punctuation.has(character)) {
      push('punctuation', position + 1);
    } else {
      const operator = multiCharacterOperators.find((candidate) => rest.startsWith(candidate)) ?? character;
      push('operator', position + (singleCharacterOperators.has(character) ? operator.length : 1));
    }
  }
  return tokens;
}

function scanWordEnd(sql: string, from: number): number {
  let end = from;
  while (end < sql.length && identifierCharacter.test(sql.charAt(end))) end += 1;
  return end;
}

/** Scans a quoted token starting at `start`; a doubled quote stands for one quote character. */
function scanQuoted(
  sql: string,
  start: number,
  quote: string,
  backslashEscapes: boolean,
): { end: number; value: string; unterminated: boolean } {
  let position = start + 1;
  while (position < sql.length) {
    const character = sql.charAt(position);
    if (backslashEscapes && character === '\\') {
      position += 2;
    } else if (character === quote) {
      if (sql.charAt(position + 1) !== quote) {
        const body = sql.slice(start + 1, position);
        const value = backslashEscapes ? decodeMysqlStringBody(body, quote) : body.replaceAll(quote + quote, quote);
        return { end: position + 1, value, unterminated: false };
      }
      position += 2;
    } else {
      position += 1;
    }
  }
  const body = sql.slice(start + 1);
  return { end: sql.length, value: backslashEscapes ? decodeMysqlStringBody(body, quote) : body, unterminated: true };
}

// MySQL's escape sequences (https://dev.mysql.com/doc/refman/8.0/en/string-literals.html). `\%` and `\_`
// keep their backslash so that LIKE patterns still see an escaped wildcard; any other escaped
// character stands for itself.
const escapes: Readonly<Record<string, string>> = {
  '0': '\0',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\x1a',
  '%': '\\%',
  _: '\\_',
};

/**
 * Decodes the body of a MySQL string literal (the text between the quotes) under the default SQL mode:
 * backslash escapes and a doubled quote character.
 */
export function decodeMysqlStringBody(body: string, quote: string): string {
  let value = '';
  for (let position = 0; position < body.length; position += 1) {
    const character = body.charAt(position);
    if (character === '\\' && position + 1 < body.length) {
      const escaped = body.charAt(position + 1);
      value += escapes[escaped] ?? escaped;
      position += 1;
    } else if (character === quote && body.charAt(position + 1) === quote) {
      value += quote;
      position += 1;
    } else {
      value += character;
    }
  }
  return value;
}

/** Quotes a name as a MySQL identifier: `` `name` ``, doubling any backtick inside. */
export function quoteMysqlIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * Quotes a name as a PostgreSQL identifier: `"name"`, doubling any double quote inside. Quoting keeps
 * the case of the name, which PostgreSQL would otherwise fold to lower case.
 */
export function quotePostgresIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Writes a value as a standard PostgreSQL string literal (no backslash escapes; quotes doubled). */
export function quotePostgresString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * Removes identifier quoting from MySQL SQL: every `` `name` `` becomes `name`. The simulated policy
 * uses it to make the realistic mistake of forgetting to quote names; names with spaces, punctuation or
 * reserved words then fail on MySQL, and names that are plain words still work.
 */
export function unquoteIdentifiers(sql: string): string {
  return tokenizeMysql(sql)
    .map((token) => (token.kind === 'quoted-identifier' && !token.unterminated ? token.value : token.text))
    .join('');
}

/**
 * The text MySQL stores when a numeric literal goes into a TEXT column: integers and decimals as
 * written, without a plus sign or leading zeros. Returns undefined for literals whose text form this
 * module does not model (hexadecimal and bit literals are binary strings in MySQL; doubles format as %g).
 */
export function mysqlNumericLiteralText(literal: string, sign = ''): string | undefined {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(literal);
  if (!match) return undefined;
  const integerPart = (match[1] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const fraction = match[2] ?? '';
  const text = fraction === '' ? integerPart : `${integerPart}.${fraction}`;
  return sign === '-' && /[1-9]/.test(text) ? `-${text}` : text;
}

/** True for tokens that carry meaning (not whitespace or comments). */
export function isSignificant(token: MysqlToken): boolean {
  return token.kind !== 'whitespace' && token.kind !== 'comment';
}

// MySQL 8.0 reserved words (https://dev.mysql.com/doc/refman/8.0/en/keywords.html). A bare reserved word is
// a syntax error as an identifier in MySQL, so it is always a keyword. The window-function names that
// MySQL 8.0.2 reserved (RANK, ROW_NUMBER, ...) are left out on purpose: MariaDB, which reproduces the
// gold answers, accepts them as column names, and the translator tells them apart by position.
const reservedWords = new Set(
  `ACCESSIBLE ADD ALL ALTER ANALYZE AND AS ASC ASENSITIVE BEFORE BETWEEN BIGINT BINARY BLOB BOTH BY CALL CASCADE
  CASE CHANGE CHAR CHARACTER CHECK COLLATE COLUMN CONDITION CONSTRAINT CONTINUE CONVERT CREATE CROSS CUBE
  CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER CURSOR DATABASE DATABASES DAY_HOUR DAY_MICROSECOND
  DAY_MINUTE DAY_SECOND DEC DECIMAL DECLARE DEFAULT DELAYED DELETE DESC DESCRIBE DETERMINISTIC DISTINCT
  DISTINCTROW DIV DOUBLE DROP DUAL EACH ELSE ELSEIF ENCLOSED ESCAPED EXCEPT EXISTS EXIT EXPLAIN FALSE FETCH FLOAT
  FLOAT4 FLOAT8 FOR FORCE FOREIGN FROM FULLTEXT FUNCTION GENERATED GET GRANT GROUP GROUPING HAVING HIGH_PRIORITY
  HOUR_MICROSECOND HOUR_MINUTE HOUR_SECOND IF IGNORE IN INDEX INFILE INNER INOUT INSENSITIVE INSERT INT INT1 INT2
  INT3 INT4 INT8 INTEGER INTERSECT INTERVAL INTO IS ITERATE JOIN JSON_TABLE KEY KEYS KILL LATERAL LEADING LEAVE
  LEFT LIKE LIMIT LINEAR LINES LOAD LOCALTIME LOCALTIMESTAMP LOCK LONG LONGBLOB LONGTEXT LOOP LOW_PRIORITY MATCH
  MAXVALUE MEDIUMBLOB MEDIUMINT MEDIUMTEXT MIDDLEINT MINUTE_MICROSECOND MINUTE_SECOND MOD MODIFIES NATURAL NOT
  NO_WRITE_TO_BINLOG NULL NUMERIC OF ON OPTIMIZE OPTION OPTIONALLY OR ORDER OUT OUTER OUTFILE PARTITION PRECISION
  PRIMARY PROCEDURE PURGE RANGE READ READS READ_WRITE REAL RECURSIVE REFERENCES REGEXP RELEASE RENAME REPEAT
  REPLACE REQUIRE RESIGNAL RESTRICT RETURN REVOKE RIGHT RLIKE SCHEMA SCHEMAS SECOND_MICROSECOND SELECT SENSITIVE
  SEPARATOR SET SHOW SIGNAL SMALLINT SPATIAL SPECIFIC SQL SQLEXCEPTION SQLSTATE SQLWARNING SQL_BIG_RESULT
  SQL_CALC_FOUND_ROWS SQL_SMALL_RESULT SSL STARTING STORED STRAIGHT_JOIN TABLE TERMINATED THEN TINYBLOB TINYINT
  TINYTEXT TO TRAILING TRIGGER TRUE UNDO UNION UNIQUE UNLOCK UNSIGNED UPDATE USAGE USE USING UTC_DATE UTC_TIME
  UTC_TIMESTAMP VALUES VARBINARY VARCHAR VARCHARACTER VARYING VIRTUAL WHEN WHERE WHILE WITH WRITE XOR YEAR_MONTH
  ZEROFILL`.split(/\s+/),
);

/** True if MySQL 8.0 reserves the word (case-insensitive), i.e. it can only be an identifier when quoted. */
export function isMysqlReservedWord(word: string): boolean {
  return reservedWords.has(word.toUpperCase());
}

// After these words a name is a table (`UPDATE t`, `INSERT INTO t (...)`), even when `(` follows.
const tableContextWords = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE', 'TABLE', 'INSERT', 'REPLACE', 'DESCRIBE']);
// `DATE '2020-01-01'` is a typed literal, not the column `Date` followed by an alias.
const typedLiteralWords = new Set(['DATE', 'TIME', 'TIMESTAMP']);
// Functions whose first argument is a unit keyword: `EXTRACT(YEAR FROM d)`, `TIMESTAMPDIFF(YEAR, a, b)`.
const unitFunctions = new Set(['EXTRACT', 'TIMESTAMPDIFF', 'TIMESTAMPADD']);

const upperWord = (token: MysqlToken | undefined) => (token?.kind === 'word' ? token.text.toUpperCase() : '');

/**
 * True if the name at `index` of `significant` (tokens without whitespace and comments) stands where a
 * table name goes: after FROM, JOIN, INTO, UPDATE... or before a `.` (`t.col`).
 */
export function isTablePosition(significant: readonly MysqlToken[], index: number): boolean {
  return tableContextWords.has(upperWord(significant[index - 1])) || significant[index + 1]?.text === '.';
}

/**
 * Non-reserved keywords can also be column names (`Year`, `Date`, `Rank`, `Name`); the position decides.
 * True if the word at `index` of `significant` is used as a keyword: a function call (`YEAR(d)`,
 * `RANK() OVER`), a typed literal (`DATE '2020-01-01'`), an interval unit (`INTERVAL 1 YEAR`), a unit
 * argument (`EXTRACT(YEAR FROM d)`) or a CAST / CONVERT type.
 */
export function isKeywordByPosition(significant: readonly MysqlToken[], index: number): boolean {
  const word = upperWord(significant[index]);
  const previous = significant[index - 1];
  const beforePrevious = upperWord(significant[index - 2]);
  const next = significant[index + 1];
  if (word === '' || previous?.text === '.') return false;
  if (next?.text === '(') return !tableContextWords.has(upperWord(previous));
  if (typedLiteralWords.has(word) && next?.kind === 'string') return true;
  if (beforePrevious === 'INTERVAL' || (previous?.text === '(' && unitFunctions.has(beforePrevious))) return true;
  const enclosingFunction = upperWord(significant[openingParenthesis(significant, index) - 1]);
  return (
    (enclosingFunction === 'CAST' && upperWord(previous) === 'AS') ||
    (enclosingFunction === 'CONVERT' && previous?.text === ',')
  );
}

/** Index of the `(` that encloses `index`, or -1. */
function openingParenthesis(significant: readonly MysqlToken[], index: number): number {
  let depth = 0;
  for (let position = index - 1; position >= 0; position -= 1) {
    const text = significant[position]?.text;
    if (text === ')') depth += 1;
    if (text === '(' && depth-- === 0) return position;
  }
  return -1;
}

// MySQL's comparison semantics as PostgreSQL functions.
// Accented Latin letters and the base letter they compare equal to under utf8mb4_general_ci: every
// letter of Latin-1, Latin Extended-A/B and Latin Extended Additional that Unicode decomposes into an
// ASCII letter plus marks (é = e, Ł stays Ł), and ß = s. PGlite has no unaccent extension, so the
// helper functions fold with `translate`.
const latinRange = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, offset) => String.fromCodePoint(first + offset));
const accentedLetters = [...latinRange(0xc0, 0x24f), ...latinRange(0x1e00, 0x1eff)]
  .map((letter) => [letter, letter.normalize('NFD').charAt(0)] as const)
  .filter(([letter, base]) => base !== letter && /[A-Za-z]/.test(base))
  .concat([['ß', 's']]);
const accentedFrom = accentedLetters.map(([letter]) => letter).join('');
const accentedTo = accentedLetters.map(([, base]) => base).join('');
const fold = (argument: string) => `upper(translate(${argument}, '${accentedFrom}', '${accentedTo}'))`;

/**
 * `CREATE OR REPLACE FUNCTION` statements for the helpers that translated SQL calls; run once per
 * database or schema (they are created in the first schema of the search_path). Plain SQL functions,
 * IMMUTABLE, and STRICT where NULL in means NULL out, as in MySQL's comparisons with NULL:
 * - `mysql_fold(text)`: upper case without accents, the weight utf8mb4_general_ci compares (for LIKE).
 * - `mysql_ci(text)`: `mysql_fold` without trailing spaces, as PAD SPACE collations compare (for `=`).
 * - `mysql_num(text)`: the leading number of the text, as MySQL converts a string to a double:
 *   '12abc' = 12, ' 3.5' = 3.5, 'abc' = 0, '62,129' = 62.
 * - aggregates `sum(text)` and `avg(text)` over `mysql_num`: MySQL sums TEXT columns as doubles, and
 *   PostgreSQL has no such aggregates, so they only make work what would otherwise fail.
 */
export const postgresHelperFunctionsSql = `
CREATE OR REPLACE FUNCTION mysql_fold(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT ${fold('value')} $$;
CREATE OR REPLACE FUNCTION mysql_ci(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT rtrim(${fold('value')}, ' ') $$;
CREATE OR REPLACE FUNCTION mysql_num(value text) RETURNS double precision
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT coalesce(substring(value from
    '^[[:space:]]*([+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?)')::double precision, 0) $$;
CREATE OR REPLACE FUNCTION mysql_sum_step(total double precision, value text) RETURNS double precision
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN value IS NULL THEN total ELSE coalesce(total, 0) + mysql_num(value) END $$;
CREATE OR REPLACE AGGREGATE sum(text) (SFUNC = mysql_sum_step, STYPE = double precision);
CREATE OR REPLACE FUNCTION mysql_avg_step(state double precision[], value text) RETURNS double precision[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT float8_accum(state, mysql_num(value)) $$;
CREATE OR REPLACE AGGREGATE avg(text) (
  SFUNC = mysql_avg_step, STYPE = double precision[], FINALFUNC = float8_avg, INITCOND = '{0,0,0}');
`;
