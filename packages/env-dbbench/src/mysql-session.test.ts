import { EventEmitter } from 'node:events';
import { InfrastructureError } from '@harness-s/core';
import type mysql from 'mysql2';
import { describe, expect, it } from 'vitest';
import { observationText } from './episode.js';
import type { StoreDisk } from './mysql-disk.js';
import { MysqlSession } from './mysql-session.js';
import type { SessionEnd } from './postgres-session.js';
import type { DbbenchTask } from './records.js';
import { resolveLimits } from './result-collector.js';

const task: DbbenchTask = {
  id: 'dev-2',
  env: 'dbbench',
  split: 'dev',
  instruction: 'How many?',
  tags: [],
  type: 'counting',
  kind: 'question',
  tableName: 't',
  columns: ['a'],
  rows: [['1']],
  label: ['1'],
  answerMd5: null,
  index: 2,
};

/** The error mysql2 reports when the server says the statement's connection was killed. */
const killed = () =>
  Object.assign(new Error('Connection was killed'), { errno: 1927, sqlState: '70100', code: 'ER_CONNECTION_KILLED' });

/**
 * A connection whose every statement fails with `failure` (after the statement was sent), or succeeds
 * with an OK packet inside the transaction when `failure` is null.
 */
function fakeConnection(failure: (() => Error) | null): { connection: mysql.Connection; log: string[] } {
  const log: string[] = [];
  const events = new EventEmitter();
  const connection = {
    threadId: 7,
    on: (name: string, listener: (...args: unknown[]) => void) => events.on(name, listener),
    off: (name: string, listener: (...args: unknown[]) => void) => events.off(name, listener),
    query: (options: { sql: string } | string, _values?: unknown, callback?: (error: Error | null) => void) => {
      const sql = typeof options === 'string' ? options : options.sql;
      log.push(sql);
      const statement = new EventEmitter();
      setTimeout(() => {
        const error = failure ? failure() : null;
        if (typeof _values === 'function') (_values as (error: Error | null) => void)(error);
        else if (callback) callback(error);
        else if (error) statement.emit('error', error);
        else {
          statement.emit('result', { affectedRows: 1, serverStatus: 1 });
          statement.emit('end');
        }
      }, 5);
      return statement;
    },
  };
  return { connection: connection as unknown as mysql.Connection, log };
}

function session(failure: (() => Error) | null, disks: StoreDisk[] = []) {
  const { connection, log } = fakeConnection(failure);
  const stopper = { killQuery: async () => undefined, killConnection: async () => undefined };
  const ends: SessionEnd[] = [];
  const made = new MysqlSession(task, {
    connection,
    database: 'hs_dbbench_aaaaaaaa_s1',
    limits: resolveLimits({ maxEpisodeBytes: 8 * mebibyte }),
    stopper,
    graceMs: 0,
    measureDisk: async () => {
      log.push('measure');
      return disks.shift() ?? { bytes: 0, unmeasured: [] };
    },
    rebuildStore: async () => {
      log.push('rebuild');
    },
    release: async (end) => {
      ends.push(end);
    },
  });
  return { session: made, log, ends };
}

const mebibyte = 2 ** 20;

describe('MysqlSession: the disk limit', () => {
  it('measures after a statement that may write, and starts the episode over when the store is over the limit', async () => {
    const { session: episode, log } = session(null, [{ bytes: 20 * mebibyte, unmeasured: [] }]);
    const outcome = await episode.execute("INSERT INTO t VALUES ('x')");
    expect(observationText(outcome)).toMatch(
      /^the statement was undone, and with it everything the episode did: it left the episode's tables at 20 MiB, over its 8 MiB disk limit/,
    );
    expect(log).toEqual([
      "INSERT INTO t VALUES ('x')",
      'measure',
      'ROLLBACK',
      'rebuild',
      'USE `hs_dbbench_aaaaaaaa_s1`',
      'START TRANSACTION',
    ]);
  });

  it('starts over when the store holds a table the server does not measure', async () => {
    const { session: episode } = session(null, [{ bytes: 0, unmeasured: ['CSV'] }]);
    expect(observationText(await episode.execute('CREATE TABLE c (a TEXT) ENGINE=CSV'))).toMatch(
      /undone, and with it everything the episode did: it made a table whose disk the server does not report \(CSV\)/,
    );
  });

  it('does not measure after a single read, and drops a store that grew at close', async () => {
    const { session: episode, log, ends } = session(null, [{ bytes: 5 * mebibyte, unmeasured: [] }]);
    expect((await episode.execute('SELECT 1')).ok).toBe(true);
    expect((await episode.execute("SELECT 1; SELECT '2'")).ok).toBe(true);
    expect(log.filter((entry) => entry === 'measure')).toHaveLength(1);
    await episode.close();
    expect(ends).toEqual([{ dirty: true, broken: false, sessionTouched: true }]);
  });
});

describe('MysqlSession: a connection killed while the agent statement runs', () => {
  it("is the agent's doing when the call could have killed it (dynamic SQL, a procedure)", async () => {
    for (const sql of ['EXECUTE s', 'CALL p()', "EXECUTE IMMEDIATE 'x'"]) {
      const { session: episode } = session(killed);
      const outcome = await episode.execute(sql);
      expect({ sql, observation: observationText(outcome) }).toEqual({
        sql,
        observation: expect.stringMatching(/^1927 \(70100\): Connection was killed \(the statement killed/),
      });
    }
  });

  it("is an infrastructure fault when the call could not have killed it (an operator's KILL)", async () => {
    for (const sql of ['SELECT SLEEP(20)', "UPDATE t SET a = 'prepare'", 'SELECT `execute` FROM t']) {
      const { session: episode } = session(killed);
      const error = await episode.execute(sql).catch((caught: unknown) => caught);
      expect({ sql, infrastructure: InfrastructureError.isInstance(error) }).toEqual({ sql, infrastructure: true });
      expect((error as InfrastructureError).code).toBe('db-connection-lost');
    }
  });
});
