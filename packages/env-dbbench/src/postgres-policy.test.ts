import { describe, expect, it } from 'vitest';
import { screenMemorySettings, screenUnrevokedCalls } from './postgres-policy.js';

describe('screenMemorySettings', () => {
  it('refuses raising the memory a statement may take, however the setting is named', () => {
    for (const sql of [
      "SET work_mem = '3GB'",
      'SET LOCAL "work_mem" TO 100000',
      "SELECT set_config('hash_mem_multiplier', '100', false)",
      "DO $$BEGIN EXECUTE 'SET maintenance_work_mem = ''2GB'''; END$$",
      'set temp_buffers = 100000',
    ])
      expect(screenMemorySettings(sql), sql).toMatch(/is not available here: it would let one statement take/);
  });

  it('lets everything else through, the word in other words included', () => {
    for (const sql of ['SELECT 1', "SELECT 'homework_memo'", 'SET statement_timeout = 0', 'SELECT work, mem FROM t'])
      expect(screenMemorySettings(sql), sql).toBeNull();
  });
});

describe('screenUnrevokedCalls', () => {
  it('refuses the functions a user that is not a superuser could not revoke, and SQL run from text', () => {
    for (const sql of [
      'SELECT pg_terminate_backend(pg_backend_pid())',
      'SELECT "lo_creat"(-1)',
      "SELECT 'x' FROM t WHERE lo_unlink (1) = 1",
      "DO 'BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); END'",
      "DO 'BEGIN NULL; END'",
      'CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      'SELECT 1; create procedure p() language sql as $$ SELECT 1 $$',
      "SELECT query_to_xml('SELECT 1', true, false, '')",
      'SELECT U&"lo\\005fcreat"(-1)',
    ])
      expect(screenUnrevokedCalls(sql), sql).toMatch(/refused/);
  });

  it('lets the statements of DBBench tasks through, and the names as data', () => {
    for (const sql of [
      'SELECT COUNT(*) FROM "t"',
      "INSERT INTO t VALUES ('lo_fi', 'do it')",
      "SELECT 'pg_terminate_backend is a function'",
      'CREATE TABLE x AS SELECT 1',
      'CREATE VIEW v AS SELECT 1',
    ])
      expect(screenUnrevokedCalls(sql), sql).toBeNull();
  });
});
