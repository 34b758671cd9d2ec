import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type MysqlTableSchema,
  postgresHelperFunctionsSql,
  quotePostgresIdentifier,
  type TranslationRule,
  translateMysqlToPostgres,
  translationRules,
  unquoteIdentifiers,
} from './mysql-dialect.js';

const games: MysqlTableSchema = {
  table: 'game_results',
  columns: ['Game', 'Name', 'Year', 'Date', 'Rank', 'Opponent', 'Home team'],
};
const translate = (sql: string) => translateMysqlToPostgres(sql, games);
const translatedSql = (sql: string) => translate(sql).sql;

describe('translateMysqlToPostgres', () => {
  it('turns backtick identifiers into double-quoted canonical names', () => {
    expect(translate('SELECT `home TEAM`, `alias` FROM `game_results`')).toEqual({
      sql: 'SELECT "Home team", "alias" FROM "game_results"',
      notes: ['backtick-identifier'],
    });
  });

  it('quotes bare table and column names in their canonical case', () => {
    expect(translate('UPDATE Game_Results SET opponent = NAME WHERE x.year IS NULL')).toEqual({
      sql: 'UPDATE "game_results" SET "Opponent" = "Name" WHERE x."Year" IS NULL',
      notes: ['bare-identifier'],
    });
    // Words that name nothing in the schema keep PostgreSQL's folding, which is consistent with itself.
    expect(translatedSql('SELECT count(*) AS total FROM game_results g ORDER BY total')).toBe(
      'SELECT count(*) AS total FROM "game_results" g ORDER BY total',
    );
  });

  it('tells keywords from columns named Year, Date and Rank by position', () => {
    expect(translatedSql('SELECT Year, Date, Rank FROM game_results ORDER BY Rank DESC')).toBe(
      'SELECT "Year", "Date", "Rank" FROM "game_results" ORDER BY "Rank" DESC',
    );
    expect(translatedSql('SELECT YEAR(Date), RANK() OVER (ORDER BY Year) FROM game_results')).toBe(
      'SELECT YEAR("Date"), RANK() OVER (ORDER BY "Year") FROM "game_results"',
    );
    expect(translatedSql("SELECT DATE '2020-01-01' + INTERVAL 1 YEAR, CAST(Date AS DATE)")).toBe(
      `SELECT DATE '2020-01-01' + INTERVAL 1 YEAR, CAST("Date" AS DATE)`,
    );
    expect(translatedSql('SELECT EXTRACT(YEAR FROM Date), TIMESTAMPDIFF(YEAR, Date, Date)')).toBe(
      'SELECT EXTRACT(YEAR FROM "Date"), TIMESTAMPDIFF(YEAR, "Date", "Date")',
    );
    // Reserved words are never bare identifiers in MySQL, whatever the schema says.
    const schema = { table: 't', columns: ['Order', 'Key'] };
    expect(translateMysqlToPostgres('SELECT `Order` FROM t ORDER BY `key`', schema).sql).toBe(
      'SELECT "Order" FROM "t" ORDER BY "Key"',
    );
  });

  it('decodes backslash escapes into standard PostgreSQL literals', () => {
    expect(translate(String.raw`SELECT 'O\'Brien', 'a\\b', 'it''s', 'tab\there', 'x\%y', '\q'`)).toEqual({
      sql: String.raw`SELECT 'O''Brien', 'a\b', 'it''s', 'tab	here', 'x\%y', 'q'`,
      notes: ['string-escapes'],
    });
  });

  it('reads "double quoted" text as a string literal, and joins adjacent literals', () => {
    expect(translate(`SELECT "say \\"hi\\"", "it's", 'a' "b" 'c'`)).toEqual({
      sql: `SELECT 'say "hi"', 'it''s', 'abc'`,
      notes: ['string-escapes', 'double-quoted-string', 'adjacent-strings'],
    });
  });

  it('compares a text column with a number numerically', () => {
    expect(translate('SELECT * FROM game_results WHERE Game = 16')).toEqual({
      sql: 'SELECT * FROM "game_results" WHERE mysql_num("Game") = 16',
      notes: ['bare-identifier', 'numeric-comparison'],
    });
    expect(translatedSql('SELECT 1 WHERE 16 <= g.Game AND Game IN (1, -2) AND Game NOT BETWEEN 1.5 AND 3')).toBe(
      'SELECT 1 WHERE 16 <= mysql_num(g."Game") AND mysql_num("Game") IN (1, -2) AND mysql_num("Game") NOT BETWEEN 1.5 AND 3',
    );
  });

  it('compares a text column with a string case- and accent-insensitively', () => {
    expect(translate("SELECT * FROM game_results WHERE `Name` = 'Jose' OR Name NOT LIKE 'a%'")).toEqual({
      sql: `SELECT * FROM "game_results" WHERE mysql_ci("Name") = mysql_ci('Jose') OR mysql_fold("Name") NOT LIKE mysql_fold('a%')`,
      notes: ['bare-identifier', 'backtick-identifier', 'case-insensitive-comparison'],
    });
    expect(translatedSql(`SELECT 1 WHERE 'x' <> Name AND Name IN ("a", 'b') AND Name BETWEEN 'a' AND 'c'`)).toBe(
      "SELECT 1 WHERE mysql_ci('x') <> mysql_ci(\"Name\") AND mysql_ci(\"Name\") IN (mysql_ci('a'), mysql_ci('b')) AND mysql_ci(\"Name\") BETWEEN mysql_ci('a') AND mysql_ci('c')",
    );
    expect(translatedSql(String.raw`SELECT 1 WHERE Name LIKE 5 OR Name LIKE 'a\_b' ESCAPE '|'`)).toBe(
      String.raw`SELECT 1 WHERE mysql_fold("Name") LIKE mysql_fold('5') OR mysql_fold("Name") LIKE mysql_fold('a\_b') ESCAPE '|'`,
    );
  });

  it('leaves comparisons alone when an operand binds tighter or the types are mixed', () => {
    const unchanged = [
      'Game + 1 = 2',
      'Game = 1 + Year',
      "BINARY Name = 'x'",
      "Name = 'x' COLLATE utf8mb4_bin",
      "Name IN ('a', 1)",
      'Name IN (SELECT 1)',
      'Name = Opponent',
    ];
    for (const condition of unchanged) {
      expect(translatedSql(`SELECT 1 WHERE ${condition}`)).not.toContain('mysql_');
    }
  });

  it('stores numeric literals into TEXT columns as the text MySQL would store', () => {
    expect(
      translate('INSERT INTO game_results (Game, Year, Name) VALUES (16, -007, 1.50), (+3, 2 + 1, 0x41);'),
    ).toEqual({
      sql: `INSERT INTO "game_results" ("Game", "Year", "Name") VALUES ('16', '-7', '1.50'), ('3', 2 + 1, 0x41)`,
      notes: ['bare-identifier', 'numeric-literal-text', 'trailing-semicolon'],
    });
    // Assignment targets are not comparisons; the WHERE clause after them is.
    expect(translatedSql("UPDATE game_results SET Game = 5, `Name` = 'x' WHERE Game = 5 AND Name = 'y'")).toBe(
      `UPDATE "game_results" SET "Game" = '5', "Name" = 'x' WHERE mysql_num("Game") = 5 AND mysql_ci("Name") = mysql_ci('y')`,
    );
  });

  it('drops trailing semicolons and translates MySQL-only comments and logical operators', () => {
    expect(translate('SELECT 1; SELECT 2 ;; # done')).toEqual({
      sql: 'SELECT 1; SELECT 2',
      notes: ['hash-comment', 'trailing-semicolon'],
    });
    expect(translate('SELECT 1 WHERE a || b && c # why\n')).toEqual({
      sql: 'SELECT 1 WHERE a OR b AND c -- why\n',
      notes: ['hash-comment', 'logical-operators'],
    });
  });

  it('passes unknown constructs through unchanged', () => {
    const sql = "SELECT @x := JSON_EXTRACT(doc, '$.a') FROM other_table LIMIT 1, 2";
    expect(translate(sql)).toEqual({ sql, notes: [] });
    expect(translatedSql("SELECT 'unterminated")).toBe("SELECT 'unterminated");
  });

  it('can leave rules out', () => {
    const disabledRules: TranslationRule[] = ['numeric-comparison', 'backtick-identifier'];
    expect(translateMysqlToPostgres('SELECT 1 FROM `t` WHERE Game = 1', games, { disabledRules }).sql).toBe(
      'SELECT 1 FROM `t` WHERE "Game" = 1',
    );
  });

  it('matches table names case-sensitively on request, as MySQL on Linux', () => {
    const sql = 'UPDATE GAME_RESULTS SET Game = 1';
    expect(translateMysqlToPostgres(sql, games, { caseSensitiveTableNames: true }).sql).toBe(
      `UPDATE "GAME_RESULTS" SET "Game" = '1'`,
    );
  });
});

describe('unquoteIdentifiers', () => {
  it('strips backticks and nothing else', () => {
    expect(unquoteIdentifiers("UPDATE `Home team` SET `a``b` = '`x`' -- `c`")).toBe(
      "UPDATE Home team SET a`b = '`x`' -- `c`",
    );
  });
});

describe('on PGlite', () => {
  let database: PGlite;
  const query = async <Row>(sql: string, parameters?: unknown[]) => (await database.query<Row>(sql, parameters)).rows;

  beforeAll(async () => {
    database = new PGlite();
    await database.exec(postgresHelperFunctionsSql);
  });
  afterAll(async () => {
    await database.close();
  });

  it('mysql_num reads the leading number like MySQL', async () => {
    const texts = ['12abc', 'abc', ' 3.5', '-1e3x', '.5', '62,129', '+7', '1e', '', '\t4'];
    const rows = await query<{ value: number }>('SELECT mysql_num(t) AS value FROM unnest($1::text[]) t', [texts]);
    expect(rows.map((row) => row.value)).toEqual([12, 0, 3.5, -1000, 0.5, 62, 7, 1, 0, 4]);
    expect(await query('SELECT mysql_num(NULL) AS value')).toEqual([{ value: null }]);
  });

  it('sums and averages TEXT as MySQL does, skipping NULL', async () => {
    const rows = await query(`SELECT sum(t) AS total, avg(t) AS mean, sum(1) AS one
      FROM unnest(ARRAY['1', '2.5x', NULL, 'abc']) t`);
    expect(rows).toEqual([{ total: 3.5, mean: 3.5 / 3, one: 4 }]);
    expect(await query('SELECT sum(t) AS total FROM unnest(ARRAY[NULL::text]) t')).toEqual([{ total: null }]);
  });

  it('mysql_ci ignores case, accents and trailing spaces; mysql_fold keeps the spaces', async () => {
    const rows = await query<Record<string, boolean>>(
      `SELECT mysql_ci('José') = mysql_ci('JOSE  ') AS pad, mysql_ci('Ærø ßÿ') = mysql_ci('ærø SY') AS letters,
        mysql_ci('a') = mysql_ci('b') AS different, mysql_fold('a ') LIKE mysql_fold('A') AS "like"`,
    );
    expect(rows).toEqual([{ pad: true, letters: true, different: false, like: false }]);
  });

  it('gives translated statements their MySQL results', async () => {
    await database.exec(`CREATE TABLE people ("Name" TEXT, "Game" TEXT);
      INSERT INTO people VALUES ('José', '16'), ('jose ', ' 16abc'), ('Ana', '160'), (NULL, NULL)`);
    const count = async (where: string) => {
      const rows = await query<{ n: number }>(
        translateMysqlToPostgres(`SELECT COUNT(*) AS n FROM people WHERE ${where};`, {
          table: 'people',
          columns: ['Name', 'Game'],
        }).sql,
      );
      return rows[0]?.n;
    };
    expect(await count("name = 'Jose'")).toBe(2);
    expect(await count("`NAME` LIKE 'jos_'")).toBe(1);
    expect(await count('Game = 16')).toBe(2);
    expect(await count("Game = '16'")).toBe(1);
    expect(await count("Name NOT IN ('ANA')")).toBe(2);
  });

  describe('AgentBench dev gold SQL', () => {
    const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
    const devRecord = z.object({
      type: z.array(z.string()),
      label: z.array(z.unknown()),
      answer_md5: z.string().optional(),
      table: z.object({
        table_name: z.string(),
        table_info: z.object({ columns: z.array(z.object({ name: z.string() })), rows: z.array(z.array(cell)) }),
      }),
    });
    type DevRecord = z.infer<typeof devRecord>;
    const records = readFileSync(new URL('../data/dev.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => devRecord.parse(JSON.parse(line)));
    const writeTasks = records.flatMap((record, index) => {
      const gold = record.label[0];
      const isWrite = record.type.includes('INSERT') || record.type.includes('UPDATE');
      return isWrite && typeof gold === 'string' ? [{ index, record, gold }] : [];
    });

    // What pymysql sends for each JSON value and MySQL then stores in a TEXT column.
    const mysqlText = (value: z.infer<typeof cell>): string | null =>
      typeof value === 'boolean' ? (value ? '1' : '0') : value === null ? null : String(value);

    /** Creates the table as AgentBench does, in a fresh schema; returns false if PostgreSQL refuses it. */
    const load = async (index: number, record: DevRecord): Promise<boolean> => {
      const { table_name: table, table_info: info } = record.table;
      const columns = info.columns.map((column) => `${quotePostgresIdentifier(column.name)} TEXT`);
      let parameter = 0;
      const tuples = info.rows.map((row) => `(${row.map(() => `$${++parameter}`).join(', ')})`);
      try {
        await database.exec(`DROP SCHEMA IF EXISTS task_${index} CASCADE; CREATE SCHEMA task_${index};
          SET search_path TO task_${index}, public; CREATE TABLE ${quotePostgresIdentifier(table)} (${columns})`);
        const values = info.rows.flat().map(mysqlText);
        await database.query(`INSERT INTO ${quotePostgresIdentifier(table)} VALUES ${tuples.join(', ')}`, values);
        return true;
      } catch {
        return false;
      }
    };

    /** AgentBench's modified-table hash, in the Python text form of the fetched row. */
    const tableHash = async (record: DevRecord): Promise<string> => {
      const columns = record.table.table_info.columns.map((column) => quotePostgresIdentifier(column.name));
      const rows = await query<{
        hash: string | null;
      }>(`SELECT md5(string_agg(rowhash, ',' ORDER BY rowhash COLLATE "C"))
        AS hash FROM (SELECT substring(md5(concat_ws(',', ${columns.join(', ')})), 1, 5) AS rowhash
        FROM ${quotePostgresIdentifier(record.table.table_name)}) sub`);
      const hash = rows[0]?.hash;
      return hash ? `[('${hash}',)]` : '[(None,)]';
    };

    /** Runs the translated gold SQL on a fresh copy of the table; returns the hash or the error. */
    const runGold = async (task: (typeof writeTasks)[number], disabledRules: TranslationRule[] = []) => {
      await load(task.index, task.record);
      const schema = {
        table: task.record.table.table_name,
        columns: task.record.table.table_info.columns.map((c) => c.name),
      };
      const translation = translateMysqlToPostgres(task.gold, schema, { disabledRules });
      try {
        await database.exec(translation.sql);
        return { hash: await tableHash(task.record), notes: translation.notes };
      } catch (error) {
        return { hash: `error: ${String(error)}`, notes: translation.notes };
      }
    };

    it('has 40 write tasks; the only unloadable record is 5 (empty column name)', async () => {
      expect(writeTasks).toHaveLength(40);
      const cellTypes = new Set(records.flatMap((r) => r.table.table_info.rows.flat().map((value) => typeof value)));
      expect([...cellTypes].sort()).toEqual(['number', 'string']);
      const unloadable: number[] = [];
      for (const [index, record] of records.entries()) if (!(await load(index, record))) unloadable.push(index);
      expect(unloadable).toEqual([5]);
      expect(records[5]?.table.table_info.columns.map((column) => column.name)).toContain('');
    });

    it('reproduces answer_md5 for every write task, and the gold SQL changes the table', async () => {
      const mismatches: string[] = [];
      for (const task of writeTasks) {
        await load(task.index, task.record);
        if ((await tableHash(task.record)) === task.record.answer_md5) mismatches.push(`${task.index}: unchanged`);
        const { hash } = await runGold(task);
        if (hash !== task.record.answer_md5) mismatches.push(`${task.index}: ${hash}`);
      }
      expect(mismatches).toEqual([]);
    });

    it('needs only the identifier rules on these 40 tasks; the others fire without changing the result', async () => {
      const fired: Partial<Record<TranslationRule, number>> = {};
      const needed: Partial<Record<TranslationRule, number>> = {};
      const identifierRules: TranslationRule[] = ['backtick-identifier', 'bare-identifier'];
      const otherRules = translationRules.filter((rule) => !identifierRules.includes(rule));
      const failures: number[] = [];
      for (const task of writeTasks) {
        // A rule that did not fire cannot be needed, so only the fired ones are left out one at a time.
        for (const rule of (await runGold(task)).notes) {
          fired[rule] = (fired[rule] ?? 0) + 1;
          if ((await runGold(task, [rule])).hash !== task.record.answer_md5) needed[rule] = (needed[rule] ?? 0) + 1;
        }
        if ((await runGold(task, otherRules)).hash !== task.record.answer_md5) failures.push(task.index);
      }
      expect(fired).toEqual({
        'backtick-identifier': 32,
        'bare-identifier': 14,
        'case-insensitive-comparison': 20,
        'numeric-literal-text': 2,
        'trailing-semicolon': 5,
      });
      expect(needed).toEqual({ 'backtick-identifier': 32, 'bare-identifier': 14 });
      expect(failures).toEqual([]);
    });
  });
});
