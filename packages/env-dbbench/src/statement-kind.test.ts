import { describe, expect, it } from 'vitest';
import {
  classifyStatement,
  missingSavepointMessage,
  touchesMysqlSession,
  touchesSessionState,
} from './statement-kind.js';

const kind = (sql: string, dialect: 'mysql' | 'postgres' = 'mysql') => classifyStatement(sql, dialect).kind;

describe('classifyStatement', () => {
  it('tells reads from changes by the leading keyword, after comments and parentheses', () => {
    for (const sql of [
      'SELECT 1',
      '  /* note */ select * from t',
      '(SELECT 1) UNION (SELECT 2)',
      'SHOW TABLES',
      'DESCRIBE t',
      'VALUES (1)',
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'read' });
    for (const sql of [
      'UPDATE t SET a = 1',
      'INSERT INTO t VALUES (1)',
      'WITH x AS (SELECT 1) DELETE FROM t',
      'CREATE TABLE x (a int)',
      '',
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'change' });
  });

  it('answers transaction control as a commit-per-call client sees it', () => {
    for (const sql of [
      'COMMIT',
      'commit work',
      'ROLLBACK',
      'BEGIN',
      'START TRANSACTION',
      'SAVEPOINT a',
      'END',
      'ABORT',
    ])
      expect({ sql, kind: kind(sql, 'postgres') }).toEqual({ sql, kind: 'no-effect' });
    expect(kind('SET autocommit = 0')).toBe('no-effect');
    expect(kind('SET @@session.autocommit = 1')).toBe('no-effect');
    expect(kind('SET @x = 1')).toBe('change');
    expect(kind('LOCK TABLES t WRITE')).toBe('no-effect');
    expect(kind('LOCK TABLE t', 'postgres')).toBe('change');
    expect(kind('START SLAVE')).toBe('change');
  });

  it('names the savepoint that no longer exists, in each engine’s words', () => {
    expect(classifyStatement('ROLLBACK TO SAVEPOINT before_update', 'mysql')).toEqual({
      kind: 'missing-savepoint',
      savepoint: 'before_update',
    });
    expect(classifyStatement('rollback work to `s1`', 'mysql')).toEqual({ kind: 'missing-savepoint', savepoint: 's1' });
    expect(classifyStatement('RELEASE SAVEPOINT s2', 'postgres')).toEqual({
      kind: 'missing-savepoint',
      savepoint: 's2',
    });
    expect(missingSavepointMessage('mysql', 's1')).toBe('1305 (42000): SAVEPOINT s1 does not exist');
    expect(missingSavepointMessage('postgres', 's1')).toBe('savepoint "s1" does not exist');
  });

  it('refuses what could end or outlive the episode', () => {
    for (const sql of [
      'KILL 12',
      'KILL QUERY 12',
      'XA START x',
      'PREPARE TRANSACTION x',
      'COMMIT PREPARED x',
      'ROLLBACK PREPARED x',
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'refused' });
    expect(kind('PREPARE s FROM "SELECT 1"')).toBe('change');
    expect(kind("EXECUTE IMMEDIATE 'DELETE FROM t'")).toBe('change');
  });

  it("refuses on MySQL what could end the episode's transaction unseen: a later statement of the call, or SQL from text", () => {
    for (const sql of [
      'DELETE FROM t WHERE 1=1; BEGIN',
      'DELETE FROM t; START TRANSACTION',
      'CREATE TABLE x (a int); COMMIT AND CHAIN',
      'SELECT 1; ROLLBACK',
      'SELECT 1; SET autocommit = 0',
      'SET completion_type = 1',
      'SET SESSION max_recursive_iterations = 100000000',
      'SET @@tmp_disk_table_size = -1',
      'SET max_heap_table_size = 4294967296',
      'SET @@session.completion_type = CHAIN',
      "PREPARE s FROM 'COMMIT AND CHAIN'",
      'PREPARE s FROM @q',
      "EXECUTE IMMEDIATE CONCAT('COMMIT AND CH', 'AIN')",
      "EXECUTE IMMEDIATE 'START TRANSACTION'",
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'refused' });
    expect(classifyStatement('SELECT 1; BEGIN', 'mysql')).toEqual({
      kind: 'refused',
      reason: expect.stringMatching(/only as a call's one statement/),
    });
    // Transaction control alone is answered as AgentBench would, not run.
    expect(kind('COMMIT AND CHAIN')).toBe('no-effect');
  });

  it('reads PostgreSQL statements as PostgreSQL does: a comment without a space still hides nothing', () => {
    expect(kind('--x\nCOMMIT AND CHAIN', 'postgres')).toBe('no-effect');
    expect(kind('/* a /* nested */ comment */ COMMIT', 'postgres')).toBe('no-effect');
    expect(kind('$$x$$; COMMIT', 'postgres')).toBe('change');
  });

  it('refuses on MySQL what any statement of a call, or an executable comment, would do', () => {
    for (const sql of [
      'select 1; kill connection_id()',
      'SELECT 1;\n  KILL QUERY 12',
      'BEGIN NOT ATOMIC KILL CONNECTION_ID(); END',
      '/*!KILL CONNECTION_ID()*/',
      '/*!50000 SELECT 1 */',
      '/*M!100000 KILL CONNECTION_ID() */',
      'SELECT 1 /*! ; KILL CONNECTION_ID() */',
      'SELECT 1; XA START x',
      "SET PASSWORD = PASSWORD('x')",
      "SELECT 1; ALTER USER CURRENT_USER() IDENTIFIED BY 'x'",
      'SET SESSION wait_timeout = 1',
      'SET @@session.net_write_timeout = 1',
      'SET STATEMENT interactive_timeout = 1 FOR SELECT 1',
      // Read under NO_BACKSLASH_ESCAPES the string ends at the second quote, and KILL runs.
      "SELECT '\\'; KILL CONNECTION_ID(); -- '",
      // Read under ANSI_QUOTES the double-quoted name ends at the second quote.
      'SELECT "\\"; KILL CONNECTION_ID(); -- "',
      'SELECT 1 --\tx\n; KILL 3',
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'refused' });
    for (const sql of [
      "SELECT 'KILL CONNECTION_ID()'",
      'SELECT `kill` FROM t',
      'SELECT t.kill FROM t',
      'SELECT 1 /* KILL */',
      'SELECT 1 -- ; KILL 3',
      'SELECT 1; SELECT 2',
      'SELECT 1 /*+ hint */',
    ])
      expect({ sql, kind: kind(sql) }).toEqual({ sql, kind: 'read' });
    // PostgreSQL runs one statement per call; its comments are comments.
    expect(kind('/*!KILL CONNECTION_ID()*/ SELECT 1', 'postgres')).toBe('read');
  });

  it('knows which PostgreSQL statements leave state a rollback keeps', () => {
    expect(touchesSessionState('PREPARE p AS SELECT 1')).toBe(true);
    expect(touchesSessionState('SELECT pg_advisory_lock(1)')).toBe(true);
    expect(touchesSessionState("SELECT nextval('s')")).toBe(true);
    expect(touchesSessionState('SELECT * FROM t')).toBe(false);
    expect(touchesSessionState('UPDATE t SET a = 1')).toBe(false);
  });
});

describe('touchesMysqlSession', () => {
  it('lets plain reads and writes keep the connection ready for the next episode', () => {
    for (const sql of [
      'SELECT * FROM t',
      'UPDATE t SET a = 1;',
      "INSERT INTO t VALUES ('@x')",
      '(SELECT 1)',
      'DESCRIBE t',
    ])
      expect({ sql, touched: touchesMysqlSession(sql) }).toEqual({ sql, touched: false });
  });

  it('flags variables, locks, session statements and several statements in one call', () => {
    for (const sql of [
      'SET @x = 1',
      'SELECT @x := 1',
      "SELECT GET_LOCK('a', 1)",
      'CREATE TEMPORARY TABLE x (a int)',
      'SELECT 1; SELECT 2',
      'USE other',
      'PREPARE s FROM "SELECT 1"',
    ])
      expect({ sql, touched: touchesMysqlSession(sql) }).toEqual({ sql, touched: true });
  });
});
