import type { CleanupReport } from './cleanup-report.js';
import { parseDatabaseUrl } from './database-url.js';
import { cleanupMysql } from './mysql-cleanup.js';
import { cleanupPostgres } from './postgres-cleanup.js';

export type { CleanupReport } from './cleanup-report.js';

/**
 * Removes what killed runs left on a server (`harness-s cleanup --env dbbench --db URL`): every
 * database, schema, role and user named `hs_dbbench_<run id>...` whose run has no open connection.
 * Nothing else on the server is touched. PGlite keeps nothing outside its process (a kept
 * `pglite:/folder` is cleaned when it is next opened), so there is nothing to do for it.
 */
export async function cleanupDbbench(url: string, options: { connectTimeoutMs?: number } = {}): Promise<CleanupReport> {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'postgres') return cleanupPostgres(target.url, options.connectTimeoutMs);
  if (target.engine === 'mysql') return cleanupMysql(target.url, options.connectTimeoutMs);
  return { removed: [], active: [] };
}
