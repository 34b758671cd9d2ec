import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbbenchBackend } from './backend.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import { createPgliteBackend } from './pglite-backend.js';
import { screenPgliteStatement } from './pglite-policy.js';
import type { DbbenchTask } from './records.js';

describe('screenPgliteStatement', () => {
  it("refuses what reaches the engine's files, programs and catalogs, however it is spelt", () => {
    for (const sql of [
      'CREATE SCHEMA s CREATE TABLE t (a int) CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()',
      'SET allow_system_table_mods = on',
      'SET "allow_system_table_mods" TO \'on\'',
      "COPY (SELECT 'x') TO '/tmp/leak.txt'",
      "copy (select 1) to program 'id'",
      ' /* a /* nested */ comment */ COPY t FROM STDIN',
      "SELECT pg_read_file('/tmp/leak.txt')",
      "SELECT * FROM pg_ls_dir('.')",
      "SELECT (pg_stat_file('PG_VERSION')).size",
      "SELECT lo_import('/etc/passwd')",
      'SELECT "pg_read_binary_file"(\'/etc/passwd\')',
      "SELECT query_to_xml('select 1', true, true, '')",
      "SELECT set_config('standard_conforming_strings', 'off', false)",
      'SELECT pg_sleep(1000)',
      "DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO ''/tmp/x'''; END $$",
      'CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $$ SELECT 1 $$',
      'CREATE OR REPLACE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$',
      "CREATE FUNCTION f(text) RETURNS text AS 'pg_read_file_off_len' LANGUAGE internal",
      'CREATE EXTENSION file_fdw',
      'ALTER SYSTEM SET work_mem = 1',
      "LOAD 'plpgsql'",
      "UPDATE pg_proc SET prosrc = 'x' WHERE proname = 'upper'",
      'UPDATE pg_catalog . "pg_proc" SET proname = proname',
      'CREATE VIEW procs AS SELECT * FROM pg_proc',
      'WITH gone AS (DELETE FROM pg_description RETURNING 1) SELECT 1',
      'SELECT U&"pg_re\\0061d_file"(\'x\')',
      "SELECT $q$ it's $q$, pg_read_file('x')",
      // Read without backslash escapes the string ends at the second quote, so the call is visible.
      "SELECT 'a\\', pg_read_file('/x') --'",
    ])
      expect({ sql, refused: screenPgliteStatement(sql) }).toEqual({
        sql,
        refused: expect.stringMatching(/refused|may not name/),
      });
  });

  it('lets the statements of DBBench episodes through', () => {
    for (const sql of [
      'SELECT * FROM "Music Chart History" LIMIT 5',
      'SELECT COUNT(*) FROM "t" WHERE mysql_ci("Title") = mysql_ci(\'copy\')',
      "INSERT INTO \"t\" (\"a\") VALUES ('pg_read_file(''x'')')",
      'UPDATE "t" SET "a" = \'COPY\' WHERE "b" LIKE \'lo_%\'',
      'DELETE FROM "t" WHERE "a" IS NULL',
      'CREATE TABLE x (a text)',
      'CREATE TEMPORARY TABLE x AS SELECT 1',
      'CREATE UNIQUE INDEX i ON x (a)',
      'CREATE OR REPLACE VIEW v AS SELECT 1',
      'ALTER TABLE x ADD COLUMN b text',
      'DROP TABLE x',
      'SELECT table_name FROM information_schema.tables',
      'SELECT tablename FROM pg_tables',
      'SET search_path TO public',
      'EXPLAIN SELECT 1',
    ])
      expect({ sql, refused: screenPgliteStatement(sql) }).toEqual({ sql, refused: null });
  });
});

describe('DBBench episodes on PGlite: what an episode cannot reach', () => {
  let backend: DbbenchBackend;
  let tasks: DbbenchTask[] = [];
  const task = (id: string) => tasks.find((item) => item.id === id) as DbbenchTask;

  beforeAll(async () => {
    backend = createPgliteBackend({ maxEpisodeBytes: 4 * 2 ** 20 });
    ({ tasks } = await createDbbenchEnvironment({ backend }).loadTasks({ split: 'dev' }));
  });
  afterAll(() => backend?.close());

  const run = async (id: string, statements: string[]): Promise<string[]> => {
    const session = await backend.openSession(task(id));
    try {
      const observations = [];
      for (const sql of statements) observations.push(observationText(await session.execute(sql)));
      return observations;
    } finally {
      await session.close();
    }
  };

  it('refuses writing a file for the next episode to read, and running a program, and goes on', async () => {
    const [copied, program, after] = await run('dev-2', [
      "COPY (SELECT 'x') TO '/tmp/leak.txt'",
      "copy (select 1) to program 'id'",
      'SELECT COUNT(*) FROM "Music Chart History"',
    ]);
    expect(copied).toMatch(/^COPY is refused: PGlite, the embedded engine, runs as superuser/);
    expect(program).toMatch(/^COPY is refused/);
    expect(after).toBe('[(35,)]');
    const [read] = await run('dev-20', ["SELECT pg_read_file('/tmp/leak.txt')"]);
    expect(read).toMatch(/^pg_read_file is refused/);
  });

  it("undoes a statement that takes the episode's tables over the disk limit", async () => {
    const [made, count, filled, gone, table] = await run('dev-2', [
      'CREATE TABLE big AS SELECT md5(g::text) AS a FROM generate_series(1, 100000) g',
      'SELECT COUNT(*) FROM big',
      'INSERT INTO "Music Chart History" ("Title") SELECT md5(g::text) FROM generate_series(1, 100000) g',
      'SELECT COUNT(*) FROM big',
      'SELECT COUNT(*) FROM "Music Chart History"',
    ]);
    expect(made).toMatch(
      /^the statement was undone: it left the episode's tables at \d+ MiB, over its 4 MiB disk limit/,
    );
    expect(count).toMatch(/"big" does not exist/);
    expect(filled).toMatch(/undone, and with it everything the episode did/);
    expect(gone).toMatch(/"big" does not exist/);
    expect(table).toBe('[(35,)]');
  });
});
