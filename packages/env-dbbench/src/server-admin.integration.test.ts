import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServers } from './__fixtures__/servers.js';
import type { DbbenchBackend } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import { postgresUserLimits } from './postgres-backend.js';
import { connectPostgres } from './postgres-client.js';

const postgres = (await testServers()).find((server) => server.name === 'PostgreSQL');

/**
 * A run whose PostgreSQL user is not a superuser, only CREATEDB and CREATEROLE, as a managed
 * server gives: its episodes are as confined as under a superuser.
 */
describe.skipIf(!postgres?.available)('DBBench on PostgreSQL under a user that is not a superuser', () => {
  const role = `hs_test_admin_${randomBytes(4).toString('hex')}`;
  const url = new URL(postgres?.url ?? 'postgres://localhost/test');
  let backend: DbbenchBackend;

  const asSuperuser = async (sql: string) => {
    const client = await connectPostgres({
      url: postgres?.url ?? '',
      applicationName: 'hs_test',
      connectTimeoutMs: 5000,
    });
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await asSuperuser(`CREATE ROLE ${role} LOGIN CREATEDB CREATEROLE`);
    url.username = role;
    url.password = '';
    backend = createBackendFromUrl(url.toString(), {
      statementTimeoutMs: 1500,
      maxSessions: 2,
      maxEpisodeBytes: 8 * 2 ** 20,
    });
  });
  afterAll(async () => {
    await backend?.close();
    // Every database and role the run made is gone with it; the admin role then drops cleanly.
    await asSuperuser(`DROP ROLE ${role}`);
  });

  const openDev2 = async () => {
    const { tasks } = await createDbbenchEnvironment({ backend }).loadTasks({ split: 'dev' });
    const task = tasks.find((item) => item.id === 'dev-2');
    if (!task) throw new Error('dev-2 expected');
    return backend.openSession(task);
  };

  it('says what a run gives up under such a user, for doctor', async () => {
    expect(await postgresUserLimits(url.toString())).toMatch(/not a superuser: episodes cannot run DO blocks/);
    expect(await postgresUserLimits(postgres?.url ?? '')).toBeNull();
  });

  it('stops a statement whose episode lifted its own time limit', async () => {
    const session = await openDev2();
    try {
      expect((await session.execute('SET statement_timeout = 0')).ok).toBe(true);
      const started = performance.now();
      expect(observationText(await session.execute('SELECT pg_sleep(600)'))).toMatch(/time limit/);
      expect(performance.now() - started).toBeLessThan(1500 + 4000);
    } finally {
      await session.close();
    }
  }, 60_000);

  it('refuses what it could not revoke, and every way of running SQL from text', async () => {
    const session = await openDev2();
    try {
      for (const sql of [
        'SELECT pg_terminate_backend(pg_backend_pid())',
        "SELECT lo_from_bytea(0, 'x')",
        'SELECT "lo_from_bytea"(0, \'x\')',
        "SELECT query_to_xml('SELECT lo_from' || '_bytea(0, ''x'')', true, false, '')",
        "DO 'BEGIN EXECUTE ''SELECT pg_termin'' || ''ate_backend(pg_backend_pid())''; END'",
        'create or replace function f() returns int language sql as $$ SELECT 1 $$',
        'SELECT 1; CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$',
      ])
        expect(observationText(await session.execute(sql)), sql).toMatch(/is refused.*not a superuser/);
      // Not refused: the names as data.
      expect(observationText(await session.execute("SELECT 'lo_from_bytea is a function'"))).toMatch(/lo_from_bytea/);
      expect(observationText(await session.execute('SELECT 1'))).toMatch(/1/);
    } finally {
      await session.close();
    }
  }, 60_000);
});
