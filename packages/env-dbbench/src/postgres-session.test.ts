import { InfrastructureError } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { postgresEngineError } from './postgres-client.js';
import {
  EngineReplaced,
  openPostgresSession,
  type PostgresConnection,
  type SessionEnd,
  type StreamEnd,
} from './postgres-session.js';
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

const engineFailure = (message: string, code: string) => Object.assign(new Error(message), { code });

/** A connection that records the session's SQL, with scripted stream ends (or errors), sizes and failures. */
function fakeConnection(script: {
  ends?: Array<StreamEnd | Error>;
  sizes?: number[];
  failOn?: RegExp;
  failure?: Error;
}) {
  const log: string[] = [];
  const connection: PostgresConnection = {
    run: async (sql) => {
      log.push(sql);
      if (script.failOn?.test(sql) && script.failure) throw script.failure;
    },
    rows: async (sql) => {
      log.push(sql);
      return [[String(script.sizes?.shift() ?? 0), '0']];
    },
    stream: async (sql) => {
      log.push(sql);
      const end = script.ends?.shift() ?? { failed: false, stopped: null };
      if (end instanceof Error) throw end;
      return end;
    },
    inTransaction: () => true,
    engineError: postgresEngineError,
  };
  return { connection, log };
}

const open = (connection: PostgresConnection) =>
  openPostgresSession(connection, task, {
    schema: 's',
    limits: resolveLimits({ maxEpisodeBytes: 2 ** 20 }),
    release: async () => undefined,
  });

describe('PostgresSession', () => {
  it("names the session's own statement that failed, and a late cancel as its cause", async () => {
    const script: Parameters<typeof fakeConnection>[0] = { ends: [{ failed: false, stopped: 'cap' }] };
    const { connection } = fakeConnection(script);
    const session = await open(connection);
    expect((await session.execute('SELECT 1')).ok).toBe(true);
    script.failOn = /^SAVEPOINT/;
    script.failure = engineFailure('canceling statement due to user request', '57014');
    const error = await session.execute('SELECT 2').catch((caught: unknown) => caught);
    expect(InfrastructureError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "database error while managing the episode of dev-2, making the savepoint before a statement: canceling statement due to user request (SQLSTATE 57014); the backend had cancelled the agent's previous statement (at the result caps), and the cancel arrived after it ended",
    );
  });

  it('undoes a statement over the disk limit, or the whole episode when the space stays taken', async () => {
    const { connection, log } = fakeConnection({ sizes: [2 * 2 ** 20, 10, 3 * 2 ** 20, 3 * 2 ** 20, 10] });
    const session = await open(connection);
    const undone = await session.execute('CREATE TABLE big AS SELECT 1');
    expect(undone).toEqual({
      ok: false,
      code: '53100',
      message: "the statement was undone: it left the episode's tables at 2 MiB, over its 1 MiB disk limit",
    });
    expect(log.slice(-3)).toEqual([
      expect.stringMatching(/episode_bytes/),
      'ROLLBACK TO SAVEPOINT dbbench_statement',
      expect.stringMatching(/episode_bytes/),
    ]);
    const restarted = await session.execute('INSERT INTO big SELECT 1');
    expect(restarted.ok ? '' : restarted.message).toMatch(/^the statement was undone, and with it everything/);
    expect(log.slice(-3)).toEqual([
      expect.stringMatching(/episode_bytes/),
      'ROLLBACK',
      expect.stringMatching(/^BEGIN; CREATE TABLE "t"/),
    ]);
    expect((await session.execute('SELECT 1')).ok).toBe(true);
  });

  it('undoes a statement the backend stopped while it wrote past the disk limit', async () => {
    const { connection, log } = fakeConnection({ ends: [{ failed: true, stopped: 'disk' }], sizes: [10] });
    const session = await open(connection);
    expect(await session.execute('CREATE TABLE big AS SELECT 1')).toEqual({
      ok: false,
      code: '53100',
      message: "the statement was stopped and undone: it was writing past the episode's 1 MiB disk limit",
    });
    expect(log.slice(-3)).toEqual([
      'CREATE TABLE big AS SELECT 1',
      'ROLLBACK TO SAVEPOINT dbbench_statement',
      expect.stringMatching(/episode_bytes/),
    ]);
  });

  it('starts the episode over before its next statement when the engine was replaced to stop one', async () => {
    const replaced = new EngineReplaced('the statement was stopped: everything the episode did is undone');
    const { connection, log } = fakeConnection({ ends: [replaced, { failed: false, stopped: null }] });
    const ends: SessionEnd[] = [];
    const session = await openPostgresSession(connection, task, {
      schema: 's',
      limits: resolveLimits(),
      release: async (end) => {
        ends.push(end);
      },
    });
    expect(await session.execute('SELECT endless()')).toEqual({ ok: false, code: '57014', message: replaced.message });
    // Nothing more is asked of the engine being replaced.
    expect(log.at(-1)).toBe('SELECT endless()');
    expect((await session.execute('SELECT 1')).ok).toBe(true);
    expect(log.slice(-4)).toEqual([
      expect.stringMatching(/^BEGIN; CREATE TABLE "t"/),
      'SAVEPOINT dbbench_statement',
      'SELECT 1',
      expect.stringMatching(/episode_bytes/),
    ]);
    await session.close();
    expect(ends).toEqual([{ dirty: false, broken: false }]);
  });
});
