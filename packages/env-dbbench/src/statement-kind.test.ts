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
