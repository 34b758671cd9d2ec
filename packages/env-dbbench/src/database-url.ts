import { resolve } from 'node:path';
import { ConfigError, InfrastructureError } from '@harness-s/core';

/** Where episodes run, as named by a `--db` URL. */
export type DatabaseTarget =
  /** `pglite:` (in memory) or `pglite:/path/to/folder`. */
  | { engine: 'pglite'; dataDir?: string }
  /** `postgres://user:password@host:port/database` (also `postgresql://`). */
  | { engine: 'postgres'; url: string }
  /** `mysql://user:password@host:port/database` (also `mariadb://`): MySQL 8 or MariaDB. */
  | { engine: 'mysql'; url: string };

/** The URL forms `--db` accepts, for messages. */
export const databaseUrlForms =
  'pglite:, pglite:/path/to/folder, postgres://user@host:5432/db, mysql://user@host:3306/db';

/** Reads a `--db` URL; throws ConfigError naming the accepted forms when it is none of them. */
export function parseDatabaseUrl(text: string): DatabaseTarget {
  const trimmed = text.trim();
  if (/^pglite:/i.test(trimmed)) {
    const path = trimmed.slice('pglite:'.length).replace(/^\/\/(?=\/)/, '');
    return path === '' || path === '//' ? { engine: 'pglite' } : { engine: 'pglite', dataDir: resolve(path) };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new ConfigError(`--db: '${redactUrl(text)}' is not a database URL; use one of ${databaseUrlForms}`, {
      code: 'bad-db-url',
    });
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  const engine = ({ postgres: 'postgres', postgresql: 'postgres', mysql: 'mysql', mariadb: 'mysql' } as const)[
    scheme as 'postgres'
  ];
  if (!engine) {
    throw new ConfigError(`--db: unknown database scheme '${scheme}:'; use one of ${databaseUrlForms}`, {
      code: 'bad-db-url',
    });
  }
  if (!url.hostname) {
    throw new ConfigError(`--db: '${redactUrl(text)}' names no host; use e.g. ${scheme}://user@127.0.0.1/db`, {
      code: 'bad-db-url',
    });
  }
  return { engine, url: trimmed };
}

/** The URL with its password hidden, for messages and logs. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.toString().replace(/\/$/, '');
  } catch {
    return text.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@');
  }
}

/** Host, port, user, password and database of a server URL, with the scheme's default port. */
export interface ServerAddress {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** The parts of a `postgres://` or `mysql://` URL. */
export function serverAddress(text: string, defaultPort: number, defaultUser: string): ServerAddress {
  const url = new URL(text);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : defaultPort,
    user: decodeURIComponent(url.username) || defaultUser,
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
  };
}

/**
 * The error for a server that does not answer: one line with the URL and the reason
 * (`cannot reach postgres://...: connection refused`), not retried, so a run stops at once.
 */
export function unreachableError(url: string, error: unknown): InfrastructureError {
  const code = (error as { code?: unknown }).code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host not found',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ECONNRESET: 'connection reset',
  };
  const message = (error as Error).message ?? String(error);
  const reason =
    (typeof code === 'string' ? reasons[code] : undefined) ??
    (/timeout/i.test(message) ? 'connection timed out' : message.split('\n')[0]);
  return new InfrastructureError(`cannot reach ${redactUrl(url)}: ${reason}`, {
    code: 'db-unreachable',
    cause: error,
    retryable: false,
  });
}
