import type { DbbenchBackend, SessionLimits } from './backend.js';
import { parseDatabaseUrl } from './database-url.js';
import { createMysqlBackend } from './mysql-backend.js';
import { createPgliteBackend } from './pglite-backend.js';
import { createPostgresBackend } from './postgres-backend.js';

/** Options shared by every backend made from a URL. */
export interface BackendFromUrlOptions extends SessionLimits {
  /** Episodes open at once at most: server connections, or PGlite engines (default 32 on servers, 1 on PGlite). */
  maxSessions?: number;
  /** Names the run's objects on a server (default: random). */
  runId?: string;
}

/**
 * The backend a `--db` URL names: `pglite:` (default; in memory) or `pglite:/folder`,
 * `postgres://...` or `mysql://...` (MySQL 8 and MariaDB). Nothing connects until `start()`.
 */
export function createBackendFromUrl(url: string, options: BackendFromUrlOptions = {}): DbbenchBackend {
  const target = parseDatabaseUrl(url);
  const { maxSessions, runId, ...limits } = options;
  if (target.engine === 'pglite') {
    return createPgliteBackend({
      ...limits,
      ...(maxSessions === undefined ? {} : { poolSize: maxSessions }),
      ...(target.dataDir === undefined ? {} : { dataDir: target.dataDir }),
    });
  }
  const server = {
    ...limits,
    url: target.url,
    ...(maxSessions === undefined ? {} : { maxSessions }),
    ...(runId ? { runId } : {}),
  };
  return target.engine === 'postgres' ? createPostgresBackend(server) : createMysqlBackend(server);
}
