import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend, DbbenchSession, SqlOutcome } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import type { DbbenchTask } from './records.js';

const servers = await testServers();
const postgres = servers.find((server) => server.name === 'PostgreSQL');
const mariadb = servers.find((server) => server.name === 'MariaDB');

/** Runs `body` with a backend on `url` and the dev tasks. */
function withBackend(url: string, options: Parameters<typeof createBackendFromUrl>[1] = {}) {
  const state: { backend?: DbbenchBackend; tasks: DbbenchTask[] } = { tasks: [] };
  beforeAll(async () => {
    state.backend = createBackendFromUrl(url, options);
    ({ tasks: state.tasks } = await createDbbenchEnvironment({ backend: state.backend }).loadTasks({ split: 'dev' }));
  });
  afterAll(() => state.backend?.close());
  return {
    open: (id: string): Promise<DbbenchSession> => {
      const task = state.tasks.find((item) => item.id === id);
      if (!state.backend || !task) throw new Error(`no backend or no task ${id}`);
      return state.backend.openSession(task);
    },
    backend: () => state.backend as DbbenchBackend,
  };
}

const count = async (session: DbbenchSession, table: string): Promise<string> => {
  const outcome = await session.execute(`SELECT COUNT(*) FROM ${table}`);
  return outcome.ok ? String(outcome.rows[0]?.[0]) : outcome.message;
};

/** The largest resident set size seen while `body` runs, above the size before it, in MiB. */
async function peakGrowth(body: () => Promise<unknown>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    await body();
  } finally {
    clearInterval(sampler);
  }
  return (Math.max(peak, process.memoryUsage().rss) - before) / 2 ** 20;
}

describe.skipIf(!postgres?.available)('DBBench on PostgreSQL: what one statement can cost', () => {
  const server = withBackend(postgres?.url ?? '', { maxSessions: 4 });
  const table = '"Music Chart History"';

  it('skips a row longer than the byte cap as it arrives: no crash, memory stays near the cap, the episode goes on', async () => {
    const session = await server.open('dev-2');
    try {
      let outcome: SqlOutcome | undefined;
      // Longer than the longest string V8 can make, which node-postgres would try to decode.
      const growth = await peakGrowth(async () => {
        outcome = await session.execute("SELECT 'kept', repeat('x', 600000000)");
      });
      expect(outcome && observationText(outcome)).toBe(
        '[] (only the first 0 rows were fetched: the result is over the size limit)',
      );
      expect(growth).toBeLessThan(150);
      expect(await count(session, table)).toBe('35');
    } finally {
      await session.close();
    }
  });

  it("never lets the backend's cancel reach the next statement", async () => {
    const capped = createBackendFromUrl(postgres?.url ?? '', { maxRows: 100 });
    const task = (await createDbbenchEnvironment({ backend: capped }).loadTasks({ split: 'dev' })).tasks[2];
    try {
      const session = await capped.openSession(task as DbbenchTask);
      // A statement the backend stops at a cap, then one that runs long enough for a late cancel to hit it.
      const sleep = 'SELECT pg_sleep(0.2)';
      for (let round = 0; round < 4; round += 1) {
        expect((await session.execute("SELECT repeat('x', 100000000)")).ok).toBe(true);
        expect(observationText(await session.execute(sleep))).toBe("[('',)]");
        const rows = await session.execute('SELECT g FROM generate_series(1, 101) g');
        expect(rows.ok && rows.truncated).toEqual({ limit: 'rows', keptRows: 100 });
        expect(observationText(await session.execute(sleep))).toBe("[('',)]");
      }
      expect(await count(session, table)).toBe('35');
      await session.close();
    } finally {
      await capped.close();
    }
  });

  it('cuts an error message too long to fetch, and reads a table with a row too long as an error', async () => {
    const session = await server.open('dev-2');
    try {
      const failed = await session.execute("SELECT repeat('x', 100000000)::int");
      expect(failed.ok).toBe(false);
      const message = observationText(failed);
      expect(message).toMatch(/^invalid input syntax for type integer: "x+\.\.\. \(the message was cut/);
      expect(message.length).toBeLessThan(70_000);
      expect((await session.execute(`UPDATE ${table} SET "Title" = repeat('x', 10000000)`)).ok).toBe(true);
      expect(await session.readTable()).toEqual({ error: expect.stringMatching(/a row is longer than/) });
      expect(await count(session, table)).toBe('35');
    } finally {
      await session.close();
    }
  });

  it("undoes a statement that takes the episode's tables over the disk limit, or the whole episode", async () => {
    const small = createBackendFromUrl(postgres?.url ?? '', { maxEpisodeBytes: 8 * 2 ** 20 });
    const task = (await createDbbenchEnvironment({ backend: small }).loadTasks({ split: 'dev' })).tasks[2];
    try {
      const session = await small.openSession(task as DbbenchTask);
      const rows = 'SELECT md5(g::text) FROM generate_series(1, 200000) g';
      // A table made by the statement itself goes with the statement: after it, or while it writes.
      const made = observationText(await session.execute(`CREATE TABLE made AS ${rows}`));
      expect(made).toMatch(
        /^the statement was (undone: it left the episode's tables at \d+ MiB, over its|stopped and undone: it was writing past the episode's) 8 MiB disk limit/,
      );
      expect(await count(session, 'made')).toMatch(/does not exist/);
      // Rows written into an older table keep their space: the episode starts over.
      expect((await session.execute(`DELETE FROM ${table} WHERE "Title" LIKE 'A%'`)).ok).toBe(true);
      expect((await session.execute('CREATE TEMPORARY TABLE big (a text)')).ok).toBe(true);
      const filled = observationText(await session.execute(`INSERT INTO big ${rows}`));
      expect(filled).toMatch(/undone, and with it everything the episode did/);
      expect(await count(session, 'big')).toMatch(/does not exist/);
      expect(await count(session, table)).toBe('35');
      expect((await session.execute('SELECT 1')).ok).toBe(true);
      await session.close();
      expect(small.sessionsInUse()).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('refuses raising the memory one statement may take on the server', async () => {
    const session = await server.open('dev-2');
    try {
      expect(observationText(await session.execute("SET work_mem = '3GB'"))).toMatch(/work_mem is not available here/);
      expect(observationText(await session.execute('SHOW work_mem'))).not.toMatch(/3GB/);
    } finally {
      await session.close();
    }
  });

  it('keeps the connection when the agent sets an idle-in-transaction timeout', async () => {
    const session = await server.open('dev-2');
    try {
      expect((await session.execute('SET idle_in_transaction_session_timeout = 200')).ok).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(await count(session, table)).toBe('35');
    } finally {
      await session.close();
    }
  });
});

describe.skipIf(!mariadb?.available)('DBBench on MariaDB: statements that would end the connection', () => {
  const server = withBackend(mariadb?.url ?? '', { maxSessions: 4 });
  const table = '`Music Chart History`';

  it("caps a statement's temporary tables on disk at the episode's disk limit, and refuses lifting it", async () => {
    const small = createBackendFromUrl(mariadb?.url ?? '', { maxEpisodeBytes: 8 * 2 ** 20 });
    const task = (await createDbbenchEnvironment({ backend: small }).loadTasks({ split: 'dev' })).tasks[2];
    try {
      const session = await small.openSession(task as DbbenchTask);
      // About 400 MB of rows to group and sort: far past the 16 MB kept in memory.
      const big =
        "SELECT COUNT(*) FROM (SELECT s.seq, REPEAT('x', 2000) y FROM seq_1_to_200000 s GROUP BY s.seq, y ORDER BY y DESC) t";
      expect(observationText(await session.execute(big))).toMatch(/is full/);
      expect(observationText(await session.execute('SET SESSION tmp_disk_table_size = -1'))).toMatch(
        /not available here/,
      );
      expect((await session.execute('SELECT 1')).ok).toBe(true);
      await session.close();
    } finally {
      await small.close();
    }
  });

  it('refuses KILL and the like in any statement of a call, and in executable comments', async () => {
    const session = await server.open('dev-2');
    try {
      for (const sql of [
        'select 1; kill connection_id()',
        '/*!KILL CONNECTION_ID()*/',
        '/*M!100000 KILL CONNECTION_ID() */',
        'SELECT 1 /*! ; KILL CONNECTION_ID() */',
        "SET PASSWORD = PASSWORD('other')",
        'SET SESSION wait_timeout = 1',
        'SELECT 1; SET @@session.net_read_timeout = 1',
      ]) {
        const outcome = await session.execute(sql);
        expect({ sql, outcome: observationText(outcome) }).toEqual({
          sql,
          outcome: expect.stringMatching(/^1227 \(42000\): .* not available here/),
        });
      }
      // A string that hides the KILL from a reader who assumes backslash escapes, which the mode turns off.
      expect((await session.execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")).ok).toBe(true);
      expect(observationText(await session.execute("SELECT '\\'; KILL CONNECTION_ID(); -- '"))).toMatch(/KILL/);
      expect(await count(session, table)).toBe('35');
    } finally {
      await session.close();
    }
  });

  it('skips a row longer than the byte cap as it arrives, and reads a table with such a row as an error', async () => {
    const session = await server.open('dev-2');
    try {
      // max_allowed_packet bounds each value, not a row of many.
      const wide = `SELECT ${Array.from({ length: 16 }, () => "REPEAT('x', 15000000)").join(', ')}`;
      let outcome: SqlOutcome | undefined;
      const growth = await peakGrowth(async () => {
        outcome = await session.execute(wide);
      });
      expect(outcome && observationText(outcome)).toBe(
        '[] (only the first 0 rows were fetched: the result is over the size limit)',
      );
      expect(growth).toBeLessThan(150);
      expect(await count(session, table)).toBe('35');
      expect((await session.execute(`ALTER TABLE ${table} MODIFY \`Title\` LONGTEXT`)).ok).toBe(true);
      expect((await session.execute(`UPDATE ${table} SET \`Title\` = REPEAT('x', 5000000)`)).ok).toBe(true);
      expect(await session.readTable()).toEqual({ error: expect.stringMatching(/a row is longer than/) });
    } finally {
      await session.close();
    }
  });

  it('refuses the agent killing its own connection, also through SQL run from text, and the episode goes on', async () => {
    const session = await server.open('dev-2');
    try {
      expect((await session.execute(`DELETE FROM ${table}`)).ok).toBe(true);
      for (const sql of [
        'KILL CONNECTION_ID()',
        "PREPARE s FROM 'KILL CONNECTION_ID()'; EXECUTE s",
        "SET @k = CONCAT('KI', 'LL ', CONNECTION_ID()); PREPARE s FROM @k; EXECUTE s",
        "EXECUTE IMMEDIATE CONCAT('KI', 'LL ', CONNECTION_ID())",
      ])
        expect(observationText(await session.execute(sql)), sql).toMatch(
          /not available here|may not control the transaction or do what a call may not|only as a string literal/,
        );
      expect(await count(session, table)).toBe('0');
    } finally {
      await session.close();
    }
    expect(server.backend().sessionsInUse()).toBe(0);
  });
});
