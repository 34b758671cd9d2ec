import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decodeMysqlStringBody,
  isKeywordByPosition,
  isMysqlReservedWord,
  isSignificant,
  isTablePosition,
  type MysqlToken,
  mysqlNumericLiteralText,
  quoteMysqlIdentifier,
  quotePostgresIdentifier,
  quotePostgresString,
  tokenizeMysql,
  unquoteIdentifiers,
} from './mysql-lexer.js';

const kinds = (sql: string) =>
  tokenizeMysql(sql)
    .filter(isSignificant)
    .map((token) => [token.kind, token.value]);

describe('tokenizeMysql', () => {
  it('splits SQL into typed tokens', () => {
    expect(kinds('SELECT `a``b`, \'x\', "y", 1.5e3, .5, 0x1F, @v, @@session.sql_mode FROM t;')).toEqual([
      ['word', 'SELECT'],
      ['quoted-identifier', 'a`b'],
      ['punctuation', ','],
      ['string', 'x'],
      ['punctuation', ','],
      ['string', 'y'],
      ['punctuation', ','],
      ['number', '1.5e3'],
      ['punctuation', ','],
      ['number', '.5'],
      ['punctuation', ','],
      ['number', '0x1F'],
      ['punctuation', ','],
      ['word', '@v'],
      ['punctuation', ','],
      ['word', '@@session'],
      ['punctuation', '.'],
      ['word', 'sql_mode'],
      ['word', 'FROM'],
      ['word', 't'],
      ['punctuation', ';'],
    ]);
  });

  it('decodes backslash escapes and doubled quotes in string literals', () => {
    expect(kinds(String.raw`'O\'Brien' 'a\\b' 'it''s' "say ""hi""" "\"q\"" 'x\%\_y' '\n\t\0\Z\q'`)).toEqual([
      ['string', "O'Brien"],
      ['string', 'a\\b'],
      ['string', "it's"],
      ['string', 'say "hi"'],
      ['string', '"q"'],
      ['string', 'x\\%\\_y'],
      ['string', '\n\t\0\x1aq'],
    ]);
  });

  it('reads MySQL comments, and `--` without a space as two minus signs', () => {
    expect(kinds('1--1')).toEqual([
      ['number', '1'],
      ['operator', '-'],
      ['operator', '-'],
      ['number', '1'],
    ]);
    expect(tokenizeMysql('a -- x\nb # y\nc /* z */ d').map((token) => token.kind)).toEqual([
      'word',
      'whitespace',
      'comment',
      'whitespace',
      'word',
      'whitespace',
      'comment',
      'whitespace',
      'word',
      'whitespace',
      'comment',
      'whitespace',
      'word',
    ]);
  });

  it('reads multi-character operators and identifiers that start with a digit', () => {
    expect(kinds('a<=>b != c ->> d <> 1abc')).toEqual([
      ['word', 'a'],
      ['operator', '<=>'],
      ['word', 'b'],
      ['operator', '!='],
      ['word', 'c'],
      ['operator', '->>'],
      ['word', 'd'],
      ['operator', '<>'],
      ['word', '1abc'],
    ]);
  });

  it('marks unterminated literals and never throws', () => {
    const [token] = tokenizeMysql("'abc");
    expect(token).toMatchObject({ kind: 'string', value: 'abc', unterminated: true });
    expect(tokenizeMysql('`abc')[0]).toMatchObject({ kind: 'quoted-identifier', unterminated: true });
    expect(tokenizeMysql('/* abc')[0]).toMatchObject({ kind: 'comment', unterminated: true });
    expect(tokenizeMysql('[x] é').map((t) => t.kind)).toEqual(['operator', 'word', 'operator', 'whitespace', 'word']);
  });

  it('is lossless on every gold statement and label of the dev split', () => {
    // Only the shape of the two fields matters here; anything else in a record is ignored.
    const records = readFileSync(new URL('../data/dev.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { label?: unknown[]; sql?: { query?: unknown } });
    const statements = records
      .flatMap((record) => [record.sql?.query, ...(record.label ?? [])])
      .filter((value): value is string => typeof value === 'string');
    expect(statements.length).toBeGreaterThanOrEqual(80);
    for (const sql of statements) {
      const tokens = tokenizeMysql(sql);
      expect(tokens.map((token) => token.text).join('')).toBe(sql);
      expect(
        tokens.every(
          (token, index) => token.start === (tokens[index - 1]?.start ?? 0) + (tokens[index - 1]?.text.length ?? 0),
        ),
      ).toBe(true);
    }
  });
});

describe('literal and identifier helpers', () => {
  it('decodes a string body for either quote character', () => {
    expect(decodeMysqlStringBody(String.raw`a''b\'c"d`, "'")).toBe(`a'b'c"d`);
    expect(decodeMysqlStringBody('a""b', '"')).toBe('a"b');
  });

  it('writes numeric literals as the text MySQL stores in a TEXT column', () => {
    const cases: Array<[string, string, string | undefined]> = [
      ['16', '', '16'],
      ['007', '', '7'],
      ['1.50', '-', '-1.50'],
      ['.5', '', '0.5'],
      ['5.', '+', '5'],
      ['0', '-', '0'],
      ['1e3', '', undefined],
      ['0x41', '', undefined],
    ];
    for (const [literal, sign, text] of cases) expect(mysqlNumericLiteralText(literal, sign)).toBe(text);
  });

  it('quotes identifiers and strings for each dialect', () => {
    expect(quoteMysqlIdentifier('a`b c')).toBe('`a``b c`');
    expect(quotePostgresIdentifier('Say "Hi"')).toBe('"Say ""Hi"""');
    expect(quotePostgresString(String.raw`O'Brien \n`)).toBe(String.raw`'O''Brien \n'`);
  });

  it('removes identifier quoting only', () => {
    expect(unquoteIdentifiers("SELECT `Year(s) won` FROM `T` WHERE `a` = '`b`'")).toBe(
      "SELECT Year(s) won FROM T WHERE a = '`b`'",
    );
  });

  it('knows reserved words, and leaves window-function names to the position rules', () => {
    expect(['select', 'Order', 'CHARACTER', 'key', 'values'].every(isMysqlReservedWord)).toBe(true);
    expect(['Year', 'Date', 'Rank', 'Name', 'Position', 'Round'].some(isMysqlReservedWord)).toBe(false);
  });
});

describe('position rules', () => {
  const significant = (sql: string): MysqlToken[] => tokenizeMysql(sql).filter(isSignificant);
  /** Positions of the word `word` (upper case) in `sql` where it is used as a keyword. */
  const keywordUses = (sql: string, word: string) => {
    const tokens = significant(sql);
    return tokens.flatMap((token, index) =>
      token.text.toUpperCase() === word && isKeywordByPosition(tokens, index) ? [index] : [],
    );
  };

  it('tells keyword uses of Year, Date and Rank from column uses', () => {
    expect(keywordUses('SELECT Year, YEAR(Date) FROM t WHERE Year = 1 ORDER BY Year', 'YEAR')).toEqual([3]);
    expect(keywordUses("SELECT Date, DATE '2020-01-01', CAST(x AS DATE), CONVERT(y, DATE) FROM t", 'DATE')).toEqual([
      3, 10, 17,
    ]);
    expect(keywordUses("SELECT Date FROM t WHERE Date = DATE '2020-01-01'", 'DATE')).toEqual([7]);
    expect(keywordUses('SELECT Rank, RANK() OVER (ORDER BY Rank) FROM t', 'RANK')).toEqual([3]);
    expect(keywordUses('SELECT d + INTERVAL 1 YEAR, EXTRACT(YEAR FROM d)', 'YEAR')).toEqual([5, 9]);
  });

  it('treats a name before `(` as a table after INTO, and a qualifier as a table', () => {
    const tokens = significant('INSERT INTO Statistics (Name) SELECT s.Name FROM Statistics s');
    const names = tokens.flatMap((token, index) => (token.kind === 'word' && index > 1 ? [index] : []));
    expect(isKeywordByPosition(tokens, 2)).toBe(false);
    expect(names.filter((index) => isTablePosition(tokens, index)).map((index) => tokens[index]?.text)).toEqual([
      'Statistics',
      's',
      'Statistics',
    ]);
  });
});
