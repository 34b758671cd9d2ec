/**
 * Removing a run's objects from a PostgreSQL server: its database `hs_dbbench_<run>` and its roles
 * `hs_dbbench_<run>_<n>`. `cleanupPostgres` finds the runs whose objects are left on the server and
 * whose process is gone (no connection of the run is open) and removes them; it touches nothing whose
 * name does not start with `hs_dbbench_` followed by a run id.
 */
import type pg from 'pg';
import type { CleanupReport } from './cleanup-report.js';
import { namePattern, runIdOf } from './naming.js';
import { connectPostgres } from './postgres-client.js';
import { quotePostgres } from './table-ddl.js';

const cleanupApplication = 'hs_dbbench_cleanup';

/** Databases and roles of every run on the server, by run id. */
async function listRuns(client: pg.Client): Promise<Map<string, { databases: string[]; roles: string[] }>> {
  const pattern = namePattern();
  const databases = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
    pattern,
  ]);
  const roles = await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname LIKE $1', [
    pattern,
  ]);
  const runs = new Map<string, { databases: string[]; roles: string[] }>();
  const entry = (runId: string) => {
    const found = runs.get(runId) ?? { databases: [], roles: [] };
    runs.set(runId, found);
    return found;
  };
  for (const { datname } of databases.rows) {
    const runId = runIdOf(datname);
    if (runId) entry(runId).databases.push(datname);
  }
  for (const { rolname } of roles.rows) {
    const runId = runIdOf(rolname);
    if (runId) entry(runId).roles.push(rolname);
  }
  return runs;
}

/** Runs that still have a connection open: their process is alive. */
async function activeRuns(client: pg.Client): Promise<Set<string>> {
  const sessions = await client.query<{ application_name: string; usename: string | null; datname: string | null }>(
    'SELECT application_name, usename, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid()',
  );
  const active = new Set<string>();
  for (const row of sessions.rows) {
    for (const name of [row.application_name, row.usename ?? '', row.datname ?? '']) {
      const runId = runIdOf(name);
      if (runId) active.add(runId);
    }
  }
  return active;
}

/** Drops the given databases (closing their connections) and roles. */
async function dropObjects(client: pg.Client, objects: { databases: string[]; roles: string[] }): Promise<void> {
  for (const database of objects.databases) {
    await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    await client.query(`DROP DATABASE IF EXISTS ${quotePostgres(database)}`);
  }
  for (const role of objects.roles) {
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    await client.query(`DROP ROLE IF EXISTS ${quotePostgres(role)}`);
  }
}

/** Removes everything of one run (used when a backend closes). */
export async function dropPostgresRun(url: string, runId: string, connectTimeoutMs = 5000): Promise<void> {
  const client = await connectPostgres({ url, applicationName: cleanupApplication, connectTimeoutMs });
  try {
    const objects = (await listRuns(client)).get(runId);
    if (objects) await dropObjects(client, objects);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Removes the objects of every run that is no longer running. */
export async function cleanupPostgres(url: string, connectTimeoutMs = 5000): Promise<CleanupReport> {
  const client = await connectPostgres({ url, applicationName: cleanupApplication, connectTimeoutMs });
  try {
    const runs = await listRuns(client);
    const active = await activeRuns(client);
    const report: CleanupReport = { removed: [], active: [] };
    for (const [runId, objects] of runs) {
      if (active.has(runId)) {
        report.active.push(runId);
        continue;
      }
      await dropObjects(client, objects);
      report.removed.push({ runId, objects: [...objects.databases, ...objects.roles] });
    }
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}
