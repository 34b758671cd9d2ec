import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend, DbbenchSession, SessionLimits } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import { closeMysql, connectMysql, runMysql } from './mysql-client.js';
import { connectPostgres } from './postgres-client.js';
import type { DbbenchTask } from './records.js';

const servers = await testServers();
const mebibyte = 2 ** 20;

/** A backend with `limits` and the dev tasks, made before the tests of a block and closed after them. */
function withBackend(url: string, limits: SessionLimits) {
  const state: { backend?: DbbenchBackend; tasks: DbbenchTask[] } = { tasks: [] };
  beforeAll(async () => {
    state.backend = createBackendFromUrl(url, { ...limits, maxSessions: 4 });
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

const scalar = async (session: DbbenchSession, sql: string): Promise<string> => {
  const outcome = await session.execute(sql);
  return outcome.ok ? String(outcome.rows[0]?.[0]) : outcome.message;
};

/**
 * Runs `body` while `measure` is polled (one measurement at a time); returns its result, the largest
 * measurement seen and how long it took.
 */
async function watchDuring<T>(
  measure: () => Promise<number>,
  body: () => Promise<T>,
): Promise<{ result: T; peak: number; ms: number }> {
  let peak = await measure();
  let running = true;
  const poller = (async () => {
    while (running) {
      peak = Math.max(peak, await measure().catch(() => 0));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = performance.now();
  try {
    const result = await body();
    return { result, peak, ms: performance.now() - started };
  } finally {
    running = false;
    await poller;
  }
}

const postgres = servers.find((server) => server.name === 'PostgreSQL');
const mariadb = servers.find((server) => server.name === 'MariaDB');

describe.skipIf(!postgres?.available)('DBBench on PostgreSQL: the disk one statement can take', () => {
  const cap = 32 * mebibyte;
  const server = withBackend(postgres?.url ?? '', { maxEpisodeBytes: cap, statementTimeoutMs: 30_000 });
  const table = '"Music Chart History"';

  it('stops a statement writing past the disk limit while it runs: the episode stays near the limit and goes on', async () => {
    const admin = await connectPostgres({ url: postgres?.url ?? '', applicationName: 'test', connectTimeoutMs: 5000 });
    const session = await server.open('dev-2');
    try {
      const database = await scalar(session, 'SELECT current_database()');
      const size = async () =>
        Number((await admin.query('SELECT pg_database_size($1) AS n', [database])).rows[0]?.n ?? 0);
      const before = await size();
      // Gigabytes, were it not stopped (a set-returning function in the select list streams its rows).
      const rows = 'SELECT repeat(md5(g::text), 8) AS a FROM (SELECT generate_series(1, 50000000) AS g) s';
      const { result, peak, ms } = await watchDuring(size, () => session.execute(`CREATE TABLE big AS ${rows}`));
      expect(observationText(result)).toMatch(
        /^the statement was stopped and undone: it was writing past the episode's 32 MiB disk limit/,
      );
      expect((peak - before) / mebibyte).toBeLessThan(32 + 48);
      expect(ms).toBeLessThan(20_000);
      expect(await scalar(session, 'SELECT COUNT(*) FROM big')).toMatch(/does not exist/);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
      // Rows written into the task table keep their space: the episode starts over, and goes on.
      expect((await session.execute(`DELETE FROM ${table} WHERE "Title" LIKE 'A%'`)).ok).toBe(true);
      const filled = await session.execute(`INSERT INTO ${table} ("Title") ${rows}`);
      expect(observationText(filled)).toMatch(/undone, and with it everything the episode did/);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await session.close();
      await admin.end();
    }
    expect(server.backend().sessionsInUse()).toBe(0);
    const next = await server.open('dev-2');
    try {
      expect(await scalar(next, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await next.close();
    }
  });

  it("caps an episode's temporary files at the disk limit", async () => {
    const session = await server.open('dev-2');
    try {
      // Sorting 5 million strings spills a few hundred MB to temporary files.
      const sorted = await session.execute(
        'SELECT count(DISTINCT a) FROM (SELECT md5(g::text) AS a FROM generate_series(1, 5000000) g) s',
      );
      expect(observationText(sorted)).toMatch(/temp_file_limit.*32 MiB disk limit/);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await session.close();
    }
  });
});

describe.skipIf(!mariadb?.available)('DBBench on MariaDB: the disk an episode can take', () => {
  const server = withBackend(mariadb?.url ?? '', { maxEpisodeBytes: 16 * mebibyte, statementTimeoutMs: 30_000 });
  const table = '`Music Chart History`';

  /** The bytes of the InnoDB files of a store (its tables), as the server reports them. */
  async function storeBytes(database: string): Promise<(() => Promise<number>) & { close(): Promise<void> }> {
    const admin = await connectMysql({ url: mariadb?.url ?? '', connectTimeoutMs: 5000 });
    const measure = async () => {
      const [row] = await runMysql<Array<{ n: unknown }>>(
        admin,
        "SELECT COALESCE(SUM(FILE_SIZE), 0) AS n FROM information_schema.INNODB_SYS_TABLESPACES WHERE SUBSTRING_INDEX(NAME, '/', 1) = ?",
        [database],
      );
      return Number(row?.n ?? 0);
    };
    return Object.assign(measure, { close: () => closeMysql(admin) });
  }

  it('undoes a statement that takes the episode over the disk limit, with everything the episode did', async () => {
    const session = await server.open('dev-2');
    try {
      expect((await session.execute(`DELETE FROM ${table} WHERE \`Title\` LIKE 'A%'`)).ok).toBe(true);
      const filled = await session.execute(
        `INSERT INTO ${table} (\`Title\`) SELECT REPEAT(MD5(seq), 30) FROM seq_1_to_30000`,
      );
      // Undone after it, or while it writes when it runs long enough to be measured meanwhile.
      expect(observationText(filled)).toMatch(
        /^the statement was (stopped and )?undone, and with it everything the episode did: (it left the episode's tables at \d+ MiB, over its|it was writing past the episode's) 16 MiB disk limit/,
      );
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
      const made = await session.execute('CREATE TABLE big AS SELECT REPEAT(MD5(seq), 30) AS a FROM seq_1_to_30000');
      expect(observationText(made)).toMatch(
        /^the statement was (stopped and )?undone, and with it everything the episode did/,
      );
      expect(await scalar(session, 'SELECT COUNT(*) FROM big')).toMatch(/doesn't exist/);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await session.close();
    }
    expect(server.backend().sessionsInUse()).toBe(0);
  });

  it('stops a statement writing past the disk limit while it runs: the episode stays near the limit and goes on', async () => {
    const session = await server.open('dev-2');
    const size = await storeBytes(await scalar(session, 'SELECT DATABASE()'));
    try {
      const { result, peak, ms } = await watchDuring(size, () =>
        session.execute(`INSERT INTO ${table} (\`Title\`) SELECT REPEAT(MD5(seq), 30) FROM seq_1_to_100000000`),
      );
      expect(observationText(result)).toMatch(
        /^the statement was stopped and undone, and with it everything the episode did: it was writing past the episode's 16 MiB disk limit/,
      );
      expect(peak / mebibyte).toBeLessThan(16 + 48);
      expect(ms).toBeLessThan(25_000);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await size.close();
      await session.close();
    }
  });

  it('refuses temporary tables and undoes tables whose size the server does not report', async () => {
    const session = await server.open('dev-2');
    try {
      const temporary = await session.execute('CREATE TEMPORARY TABLE t (a TEXT)');
      expect(observationText(temporary)).toMatch(/temporary tables are not available here/);
      const csv = await session.execute('CREATE TABLE c (a TEXT NOT NULL) ENGINE=CSV');
      expect(observationText(csv)).toMatch(/undone.*CSV/);
      expect(await scalar(session, 'SELECT COUNT(*) FROM c')).toMatch(/doesn't exist/);
      expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await session.close();
    }
  });

  it('drops a store that grew instead of giving it to the next episode', async () => {
    const first = await server.open('dev-2');
    const grown = await scalar(first, 'SELECT DATABASE()');
    // Within the limit, but the space stays in the store's files after the rollback.
    expect(
      (await first.execute(`INSERT INTO ${table} (\`Title\`) SELECT REPEAT(MD5(seq), 30) FROM seq_1_to_5000`)).ok,
    ).toBe(true);
    await first.close();
    const next = await server.open('dev-2');
    try {
      expect(await scalar(next, 'SELECT DATABASE()')).not.toBe(grown);
      expect(await scalar(next, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
    } finally {
      await next.close();
    }
  });
});
