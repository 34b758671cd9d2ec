import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend, DbbenchSession } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import type { DbbenchTask } from './records.js';

const servers = await testServers();

/** Short limits, so the tests that hit them stay fast. */
const limits = { statementTimeoutMs: 1500, maxRows: 1000 };

for (const server of servers) {
  const mysql = server.name === 'MariaDB';
  describe.skipIf(!server.available)(`DBBench on ${server.name}: isolation and limits`, () => {
    let backend: DbbenchBackend;
    let tasks: DbbenchTask[] = [];
    const task = (id: string) => tasks.find((item) => item.id === id) as DbbenchTask;
    const quote = (name: string) => (mysql ? `\`${name}\`` : `"${name}"`);

    beforeAll(async () => {
      backend = createBackendFromUrl(server.url, { ...limits, maxSessions: 8 });
      ({ tasks } = await createDbbenchEnvironment({ backend }).loadTasks({ split: 'dev' }));
    });
    afterAll(() => backend?.close());

    const observe = async (session: DbbenchSession, sql: string) => observationText(await session.execute(sql));
    const scalar = async (session: DbbenchSession, sql: string): Promise<string> => {
      const outcome = await session.execute(sql);
      if (!outcome.ok) throw new Error(outcome.message);
      return String(outcome.rows[0]?.[0]);
    };
    /** The episode's own database. */
    const home = (session: DbbenchSession) =>
      scalar(session, mysql ? 'SELECT DATABASE()' : 'SELECT current_database()');

    async function withSessions<T>(ids: string[], body: (sessions: DbbenchSession[]) => Promise<T>): Promise<T> {
      const sessions = await Promise.all(ids.map((id) => backend.openSession(task(id))));
      try {
        return await body(sessions);
      } finally {
        await Promise.all(sessions.map((session) => session.close()));
      }
    }

    it("cannot read, list or drop another episode's table", async () => {
      await withSessions(['dev-2', 'dev-20'], async ([attacker, victim]) => {
        if (!attacker || !victim) throw new Error('two sessions expected');
        const victimHome = await home(victim);
        // PostgreSQL: each episode has a database of its own, which no other episode can reach.
        const victimTable = `${quote(victimHome)}.${mysql ? '' : 'public.'}${quote(task('dev-20').tableName)}`;
        const read = await attacker.execute(`SELECT * FROM ${victimTable}`);
        expect(read.ok).toBe(false);
        expect(observationText(read)).toMatch(mysql ? /denied/i : /cross-database references are not implemented/);
        if (!mysql) {
          const other = await attacker.execute(`SELECT * FROM public.${quote(task('dev-20').tableName)}`);
          expect(observationText(other)).toMatch(/does not exist/);
        }
        const dropped = await attacker.execute(`DROP TABLE ${victimTable}`);
        expect(dropped.ok).toBe(false);
        const listed = await observe(
          attacker,
          `SELECT table_name FROM information_schema.tables WHERE table_name = '${task('dev-20').tableName}'`,
        );
        expect(listed).toBe('[]');
        // The victim's table is intact.
        expect(await scalar(victim, `SELECT COUNT(*) FROM ${quote(task('dev-20').tableName)}`)).toBe(
          String(task('dev-20').rows.length),
        );
      });
    });

    it('cannot create or drop databases, grant itself rights, or end its own connection', async () => {
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        const attempts = mysql
          ? [
              'CREATE DATABASE hs_attack',
              'DROP DATABASE test',
              'DROP DATABASE mysql',
              'GRANT ALL PRIVILEGES ON *.* TO CURRENT_USER()',
              "CREATE USER 'hs_attack'@'%'",
              'SELECT * FROM mysql.user',
              'KILL CONNECTION_ID()',
            ]
          : [
              'CREATE DATABASE hs_attack',
              'DROP DATABASE test',
              'ALTER ROLE CURRENT_USER SUPERUSER',
              'GRANT pg_read_server_files TO CURRENT_USER',
              'CREATE ROLE hs_attack',
              'SELECT pg_terminate_backend(pg_backend_pid())',
            ];
        for (const sql of attempts) {
          const outcome = await session.execute(sql);
          expect({ sql, ok: outcome.ok }).toEqual({ sql, ok: false });
        }
        // Still working afterwards.
        expect(await scalar(session, `SELECT COUNT(*) FROM ${quote(task('dev-2').tableName)}`)).toBe('35');
      });
    });

    it('cannot read server files or run server programs', async () => {
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        const table = quote(task('dev-2').tableName);
        if (mysql) {
          // Without the FILE privilege LOAD_FILE gives NULL, MySQL's refusal.
          expect(await observe(session, "SELECT LOAD_FILE('/etc/passwd')")).toBe('[(None,)]');
          expect((await session.execute(`LOAD DATA INFILE '/etc/passwd' INTO TABLE ${table}`)).ok).toBe(false);
          expect((await session.execute(`LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE ${table}`)).ok).toBe(false);
          expect((await session.execute("SELECT 1 INTO OUTFILE '/tmp/hs_attack'")).ok).toBe(false);
        } else {
          for (const sql of [
            "SELECT pg_read_file('/etc/passwd')",
            `COPY ${table} FROM PROGRAM 'id'`,
            "COPY (SELECT 1) TO '/tmp/hs_attack'",
            "SELECT lo_import('/etc/passwd')",
          ]) {
            const outcome = await session.execute(sql);
            expect({ sql, ok: outcome.ok }).toEqual({ sql, ok: false });
            expect(observationText(outcome)).toMatch(/denied|privilege|superuser/i);
          }
        }
      });
    });

    it('stops an endless statement at the time limit, even after the agent lifts it, and goes on', async () => {
      await withSessions(['dev-2', 'dev-3'], async ([session, bystander]) => {
        if (!session || !bystander) throw new Error('two sessions expected');
        const sleep = mysql ? 'SELECT SLEEP(600)' : 'SELECT pg_sleep(600)';
        const lift = mysql ? 'SET SESSION max_statement_time = 0' : 'SET statement_timeout = 0';
        for (const setup of [null, lift]) {
          if (setup) expect((await session.execute(setup)).ok).toBe(true);
          const started = performance.now();
          const [stopped, other] = await Promise.all([
            observe(session, sleep),
            scalar(bystander, `SELECT COUNT(*) FROM ${quote(task('dev-3').tableName)}`),
          ]);
          expect(stopped).toMatch(/time limit/);
          expect(performance.now() - started).toBeLessThan(limits.statementTimeoutMs + 4000);
          expect(other).toBe(String(task('dev-3').rows.length));
        }
        expect(await scalar(session, `SELECT COUNT(*) FROM ${quote(task('dev-2').tableName)}`)).toBe('35');
      });
    });

    it('caps a huge cross join at the row limit, and stops a huge aggregate at the time limit', async () => {
      const table = quote(task('dev-2').tableName);
      const huge = `SELECT a.*, b.* FROM ${table} a, ${table} b, ${table} c, ${table} d, ${table} e`;
      // A time limit far off, so that only the row cap can stop the join, however busy the machine.
      const patient = createBackendFromUrl(server.url, { statementTimeoutMs: 60_000, maxRows: limits.maxRows });
      try {
        const session = await patient.openSession(task('dev-2'));
        const started = performance.now();
        const capped = await session.execute(huge);
        expect(capped.ok ? capped.rows.length : capped.message).toBe(limits.maxRows);
        expect(capped.ok && capped.truncated?.limit).toBe('rows');
        expect(observationText(capped)).toMatch(/only the first 1000 rows were fetched/);
        expect(performance.now() - started).toBeLessThan(20_000);
        expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
        await session.close();
      } finally {
        await patient.close();
      }
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        const counted = await observe(
          session,
          `SELECT COUNT(*) FROM ${table} a, ${table} b, ${table} c, ${table} d, ${table} e, ${table} f, ${table} g`,
        );
        expect(counted).toMatch(/time limit/);
        expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
      });
    });

    it('answers transaction control as AgentBench does and still undoes everything on close', async () => {
      const table = quote(task('dev-2').tableName);
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        for (const sql of ['START TRANSACTION', `DELETE FROM ${table}`, 'ROLLBACK', 'COMMIT', 'SAVEPOINT a'])
          expect({ sql, ok: (await session.execute(sql)).ok }).toEqual({ sql, ok: true });
        // AgentBench commits after every call, so the ROLLBACK above undid nothing.
        expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('0');
        expect(await observe(session, 'ROLLBACK TO SAVEPOINT a')).toMatch(/SAVEPOINT "?a"? does not exist/i);
        // DDL ends a MySQL transaction: that episode's database is then dropped, not reused.
        expect((await session.execute('CREATE TABLE hs_extra (a TEXT)')).ok).toBe(true);
      });
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
        expect((await session.execute('SELECT * FROM hs_extra')).ok).toBe(false);
      });
      expect(backend.sessionsInUse()).toBe(0);
    });

    it('keeps a commit hidden after another statement, or behind a comment, from outliving the episode', async () => {
      const table = quote(task('dev-2').tableName);
      const hidden = mysql
        ? [`DELETE FROM ${table} WHERE 1=1; BEGIN`, "PREPARE s FROM 'COMMIT AND CHAIN'", 'SET completion_type = 1']
        : [`DELETE FROM ${table}`, '--x\nCOMMIT AND CHAIN', 'CREATE TABLE planted (a text)', '--x\nCOMMIT AND CHAIN'];
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        for (const sql of hidden) await session.execute(sql);
      });
      await withSessions(['dev-2'], async ([session]) => {
        if (!session) throw new Error('session expected');
        expect(await scalar(session, `SELECT COUNT(*) FROM ${table}`)).toBe('35');
        expect((await session.execute('SELECT * FROM planted')).ok).toBe(false);
      });
    });
  });
}
