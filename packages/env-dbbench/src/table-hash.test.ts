import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatHashResult } from './answer-scoring.js';
import { parsePythonLiteral, pythonLiteralStr } from './python-literal.js';
import { MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN, tableHash, tableHashSql } from './table-hash.js';

interface DevRecord {
  index: number;
  type: string;
  label: string[];
  answerMd5: string | undefined;
  tableName: string;
  columns: string[];
  /** As AgentBench inserts them: `str(cell)` for every cell. */
  rows: string[][];
}

const devRecords: DevRecord[] = readFileSync(new URL('../data/dev.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line, index) => {
    const record = JSON.parse(line) as {
      type: string[];
      label: string[];
      answer_md5?: string;
      table: { table_name: string; table_info: { columns: Array<{ name: string }>; rows: unknown[][] } };
    };
    const { table_name: tableName, table_info: tableInfo } = record.table;
    return {
      index,
      type: record.type[0] ?? '',
      label: record.label,
      answerMd5: record.answer_md5,
      tableName,
      columns: tableInfo.columns.map((column) => column.name),
      rows: tableInfo.rows.map((row) => row.map(String)),
    };
  });
const inserts = devRecords.filter((record) => record.type === 'INSERT');
const updates = devRecords.filter((record) => record.type === 'UPDATE');
// Record 5 has an empty column name: no engine can create its table.
const loadable = devRecords.filter((record) => !record.columns.includes(''));

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');
const identifier = String.raw`\x60[^\x60]*\x60|[A-Za-z_]\w*`;
const sqlValue = String.raw`'(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?`;
const unquote = (name: string) => name.trim().replace(/^`|`$/g, '');
/** A SQL literal's text as stored in a TEXT column; these MySQL literals read the same as Python ones. */
const storedText = (literal: string) => pythonLiteralStr(parsePythonLiteral(literal));

function columnIndex(record: DevRecord, name: string): number {
  const index = record.columns.findIndex((column) => column.toLowerCase() === unquote(name).toLowerCase());
  if (index === -1) throw new Error(`record ${record.index}: no column ${name}`);
  return index;
}

/** The table after the gold INSERT: `label[0]` is one `INSERT INTO t (columns) VALUES (...)`. */
function applyGoldInsert(record: DevRecord): Array<Array<string | null>> {
  const pattern = new RegExp(
    String.raw`^INSERT INTO\s+(?:${identifier})\s*\(((?:\x60[^\x60]*\x60|[^)\x60])*)\)\s*VALUES\s*(\(.*\))\s*;?\s*$`,
    's',
  );
  const match = pattern.exec(record.label[0] ?? '');
  if (!match) throw new Error(`record ${record.index}: unexpected INSERT`);
  const names = (match[1] ?? '').match(/`[^`]*`|[^,]+/g) ?? [];
  const values = parsePythonLiteral(match[2] ?? '');
  if (values.type !== 'tuple') throw new Error(`record ${record.index}: VALUES is not a tuple`);
  const added: Array<string | null> = record.columns.map(() => null);
  names.forEach((name, i) => {
    const value = values.items[i];
    added[columnIndex(record, name)] = value === undefined ? null : pythonLiteralStr(value);
  });
  return [...record.rows, added];
}

/** MySQL's default comparison for these tables: case- and accent-insensitive. */
const folded = (text: string) => text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');

/** The table after the gold UPDATE: `UPDATE t SET a = 'x', ... WHERE b = 'y' AND ...`. */
function applyGoldUpdate(record: DevRecord): string[][] {
  const sql = (record.label[0] ?? '').trim().replace(/;$/, '');
  const match = new RegExp(String.raw`^UPDATE\s+(?:${identifier})\s+SET\s+(.*?)\s+WHERE\s+(.*)$`, 'is').exec(sql);
  const pair = new RegExp(String.raw`^\s*(${identifier})\s*=\s*(${sqlValue})\s*$`);
  const pairs = (text: string, separator: RegExp) =>
    text.split(separator).map((part) => {
      const found = pair.exec(part);
      if (!found) throw new Error(`record ${record.index}: unexpected clause ${part}`);
      return { column: columnIndex(record, found[1] ?? ''), value: storedText(found[2] ?? '') };
    });
  if (!match) throw new Error(`record ${record.index}: unexpected UPDATE`);
  const assignments = pairs(match[1] ?? '', new RegExp(String.raw`,(?=\s*(?:${identifier})\s*=)`));
  const conditions = pairs(match[2] ?? '', /\s+AND\s+/i);
  return record.rows.map((row) => {
    if (!conditions.every(({ column, value }) => folded(row[column] ?? '') === folded(value))) return row;
    const updated = [...row];
    for (const { column, value } of assignments) updated[column] = value;
    return updated;
  });
}

describe('tableHash on dev records', () => {
  it('gives a stable 32-hex hash for every INSERT/UPDATE table, whatever the row order', () => {
    expect(inserts.length + updates.length).toBe(40);
    for (const record of [...inserts, ...updates]) {
      const hash = tableHash(record.rows);
      expect(hash).toMatch(/^[0-9a-f]{32}$/);
      expect(tableHash(record.rows)).toBe(hash);
      expect(tableHash([...record.rows].reverse())).toBe(hash);
    }
  });

  it.each(inserts.map((record) => [record.index, record] as const))(
    'record %i: the gold INSERT gives answer_md5',
    (_index, record) => {
      expect(formatHashResult(tableHash(applyGoldInsert(record)))).toBe(record.answerMd5);
      expect(formatHashResult(tableHash(record.rows))).not.toBe(record.answerMd5);
    },
  );

  it.each(updates.map((record) => [record.index, record] as const))(
    'record %i: the gold UPDATE gives answer_md5',
    (_index, record) => {
      expect(formatHashResult(tableHash(applyGoldUpdate(record)))).toBe(record.answerMd5);
      expect(formatHashResult(tableHash(record.rows))).not.toBe(record.answerMd5);
    },
  );
});

describe('tableHash edge cases', () => {
  const manyRows = Array.from({ length: 200 }, (_, i) => [`row ${i}`, i % 3 === 0 ? null : `cell ${i}`]);
  const prefixes = (rows: Array<Array<string | null>>) =>
    rows.map((row) => md5(row.filter((cell) => cell !== null).join(',')).slice(0, 5)).sort();

  it('skips NULL cells as CONCAT_WS does, and hashes an all-NULL row as the empty string', () => {
    expect(tableHash([['a', null, 'b']])).toBe(tableHash([['a', 'b']]));
    expect(tableHash([['a', null, 'b']])).toBe(md5(md5('a,b').slice(0, 5)));
    expect(tableHash([[null, null]])).toBe(md5(md5('').slice(0, 5)));
  });

  it('returns null for an empty table, printed as None', () => {
    expect(tableHash([])).toBeNull();
    expect(formatHashResult(tableHash([]))).toBe('[(None,)]');
  });

  it('cuts the joined row hashes to group_concat_max_len bytes (1024: 170 rows and 4 characters)', () => {
    const joined = prefixes(manyRows).join(',');
    expect(tableHash(manyRows)).toBe(md5(joined.slice(0, 1024)));
    expect(tableHash(manyRows, { groupConcatMaxLen: Number.POSITIVE_INFINITY })).toBe(md5(joined));
    expect(tableHash(manyRows, { groupConcatMaxLen: 2048 })).toBe(md5(joined));
    expect(MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN).toBe(1024);
    // 170 rows join to 1019 bytes: no cut. 171 rows join to 1025: the last character goes.
    const rows170 = manyRows.slice(0, 170);
    const rows171 = manyRows.slice(0, 171);
    expect(tableHash(rows170)).toBe(tableHash(rows170, { groupConcatMaxLen: Number.POSITIVE_INFINITY }));
    expect(tableHash(rows171)).not.toBe(tableHash(rows171, { groupConcatMaxLen: Number.POSITIVE_INFINITY }));
    // Past the cut, rows whose hash sorts last no longer change the result.
    const sortedLast = manyRows.filter((row) => (prefixes([row])[0] ?? '') > (prefixes(manyRows)[171] ?? ''));
    expect(sortedLast.length).toBeGreaterThan(0);
    expect(tableHash(manyRows.filter((row) => !sortedLast.includes(row)))).toBe(tableHash(manyRows));
  });
});

describe('tableHashSql', () => {
  it('writes the MySQL query exactly as AgentBench does', () => {
    expect(tableHashSql('mysql', 'Olympic Medals', ['Rank', 'Gold'])).toBe(
      "select md5(group_concat(rowhash order by rowhash)) as hash from( SELECT substring(MD5(CONCAT_WS(',', `Rank`,`Gold`)), 1, 5) AS rowhash FROM `Olympic Medals`) as sub;",
    );
    expect(tableHashSql('mysql', 'a`b', ['c`d'])).toContain("CONCAT_WS(',', `c``d`)), 1, 5) AS rowhash FROM `a``b`)");
  });

  it('writes the PostgreSQL query with double-quoted names, C collation and the MySQL cut', () => {
    expect(tableHashSql('postgres', 'say "hi"', ['a"b', 'c'])).toBe(
      `select md5(left(string_agg(rowhash, ',' ORDER BY rowhash COLLATE "C"), 1024)) as hash from (SELECT substring(md5(concat_ws(',', "a""b", "c")), 1, 5) AS rowhash FROM "say ""hi""") as sub;`,
    );
    expect(tableHashSql('postgres', 't', ['c'], { groupConcatMaxLen: Number.POSITIVE_INFINITY })).toContain(
      `select md5(string_agg(rowhash, ',' ORDER BY rowhash COLLATE "C")) as hash`,
    );
  });

  it('refuses names no engine accepts', () => {
    expect(() => tableHashSql('mysql', 't', ['', 'Name'])).toThrow(/empty column name/);
    expect(() => tableHashSql('postgres', '', ['c'])).toThrow(/table name is empty/);
    expect(() => tableHashSql('postgres', 't', [])).toThrow(/no columns/);
  });
});

describe('tableHashSql on PGlite agrees with tableHash', () => {
  let database: PGlite;
  beforeAll(async () => {
    database = new PGlite();
    await database.waitReady;
  });
  afterAll(async () => {
    await database.close();
  });

  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  /** Loads a table as AgentBench does (TEXT columns, one multi-row INSERT with placeholders), then hashes it. */
  async function hashOnPostgres(
    tableName: string,
    columns: string[],
    rows: Array<Array<string | null>>,
    options?: { groupConcatMaxLen?: number },
  ): Promise<string | null> {
    await database.exec(`DROP TABLE IF EXISTS ${quote(tableName)}`);
    await database.exec(`CREATE TABLE ${quote(tableName)} (${columns.map((c) => `${quote(c)} TEXT`).join(', ')})`);
    if (rows.length > 0) {
      let parameter = 0;
      const tuples = rows.map((row) => `(${row.map(() => `$${++parameter}`).join(', ')})`).join(', ');
      const insert = `INSERT INTO ${quote(tableName)} (${columns.map(quote).join(', ')}) VALUES ${tuples}`;
      await database.query(insert, rows.flat());
    }
    const result = await database.query<{ hash: string | null }>(tableHashSql('postgres', tableName, columns, options));
    await database.exec(`DROP TABLE ${quote(tableName)}`);
    return result.rows[0]?.hash ?? null;
  }

  it('on every loadable dev table', async () => {
    expect(loadable).toHaveLength(59);
    for (const record of loadable) {
      const onPostgres = await hashOnPostgres(record.tableName, record.columns, record.rows);
      expect(onPostgres, `record ${record.index}`).toBe(tableHash(record.rows));
    }
  });

  it('with NULL cells, an empty table, more than 170 rows and more than 100 columns', async () => {
    expect(
      await hashOnPostgres(
        'nulls',
        ['a', 'b', 'c'],
        [
          ['x', null, 'y'],
          [null, null, null],
        ],
      ),
    ).toBe(
      tableHash([
        ['x', null, 'y'],
        [null, null, null],
      ]),
    );
    expect(await hashOnPostgres('empty', ['a'], [])).toBeNull();
    const manyRows = Array.from({ length: 400 }, (_, i) => [`row ${i}`, `é ${i * 7}`]);
    expect(await hashOnPostgres('many rows', ['a', 'b'], manyRows)).toBe(tableHash(manyRows));
    const uncut = { groupConcatMaxLen: Number.POSITIVE_INFINITY };
    expect(await hashOnPostgres('many rows', ['a', 'b'], manyRows, uncut)).toBe(tableHash(manyRows, uncut));
    const wideColumns = Array.from({ length: 120 }, (_, i) => `column ${i}`);
    const wideRows = [wideColumns.map((_, i) => (i % 5 === 0 ? null : `v${i}`)), wideColumns.map(() => 'w')];
    expect(await hashOnPostgres('wide', wideColumns, wideRows)).toBe(tableHash(wideRows));
  });
});
