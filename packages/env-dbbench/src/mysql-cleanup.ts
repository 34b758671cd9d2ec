/**
 * Removing a run's objects from a MySQL / MariaDB server: its databases `hs_dbbench_<run>_<n>` and its
 * users `hs_dbbench_<run>_<n>`. A live run holds the named lock `hs_dbbench_<run>` (GET_LOCK) for as
 * long as its process lives; `cleanupMysql` removes the runs whose lock is free and touches nothing
 * whose name does not start with `hs_dbbench_` followed by a run id.
 */
import type mysql from 'mysql2';
import type { CleanupReport } from './cleanup-report.js';
import { closeMysql, connectMysql, runMysql } from './mysql-client.js';
import { namePattern, runIdOf, runObjectName } from './naming.js';
import { quoteMysql } from './table-ddl.js';

interface RunObjects {
  databases: string[];
  users: Array<{ user: string; host: string }>;
}

/** Databases and users of every run (or of one) on the server, by run id. */
async function listRuns(connection: mysql.Connection, runId?: string): Promise<Map<string, RunObjects>> {
  const pattern = namePattern(runId);
  const databases = await runMysql<Array<{ name: string }>>(
    connection,
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
    [pattern],
  );
  const users = await runMysql<Array<{ user: string; host: string }>>(
    connection,
    'SELECT User AS user, Host AS host FROM mysql.user WHERE User LIKE ?',
    [pattern],
  );
  const runs = new Map<string, RunObjects>();
  const entry = (id: string) => {
    const found = runs.get(id) ?? { databases: [], users: [] };
    runs.set(id, found);
    return found;
  };
  for (const { name } of databases) {
    const id = runIdOf(String(name));
    if (id) entry(id).databases.push(String(name));
  }
  for (const { user, host } of users) {
    const id = runIdOf(String(user));
    if (id) entry(id).users.push({ user: String(user), host: String(host) });
  }
  return runs;
}

/** Ends the sessions of the run's users, then drops its databases and users. */
async function dropObjects(connection: mysql.Connection, objects: RunObjects): Promise<void> {
  const userNames = new Set(objects.users.map(({ user }) => user));
  const sessions = await runMysql<Array<{ id: number; user: string }>>(
    connection,
    'SELECT ID AS id, USER AS user FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()',
  );
  for (const session of sessions) {
    if (userNames.has(String(session.user)))
      await runMysql(connection, `KILL ${Number(session.id)}`).catch(() => undefined);
  }
  for (const database of objects.databases)
    await runMysql(connection, `DROP DATABASE IF EXISTS ${quoteMysql(database)}`);
  for (const { user, host } of objects.users) await runMysql(connection, 'DROP USER IF EXISTS ?@?', [user, host]);
}

/** Removes everything of one run with the given admin connection (used when a backend closes). */
export async function dropMysqlRun(connection: mysql.Connection, runId: string): Promise<void> {
  const objects = (await listRuns(connection, runId)).get(runId);
  if (objects) await dropObjects(connection, objects);
}

/** Removes the objects of every run whose process is gone. */
export async function cleanupMysql(url: string, connectTimeoutMs = 5000): Promise<CleanupReport> {
  const connection = await connectMysql({ url, connectTimeoutMs });
  try {
    const report: CleanupReport = { removed: [], active: [] };
    for (const [runId, objects] of await listRuns(connection)) {
      const [holder] = await runMysql<Array<{ holder: unknown }>>(connection, 'SELECT IS_USED_LOCK(?) AS holder', [
        runObjectName(runId),
      ]);
      if (holder?.holder !== null && holder?.holder !== undefined) {
        report.active.push(runId);
        continue;
      }
      await dropObjects(connection, objects);
      report.removed.push({
        runId,
        objects: [...objects.databases, ...objects.users.map(({ user, host }) => `'${user}'@'${host}'`)],
      });
    }
    return report;
  } finally {
    await closeMysql(connection);
  }
}
