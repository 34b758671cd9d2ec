/**
 * DBBench on a PostgreSQL server. A run gets its own template database `hs_dbbench_<run>` holding the
 * MySQL-compatibility functions in schema `dbbench_compat`, owned by the admin and only executable by
 * episodes. Each episode leases a slot: a login role `hs_dbbench_<run>_<n>`, a database of the same
 * name made from the template, where the role may only create in `public` (and temporary tables), and
 * one connection logged in as that role. The episode is one transaction on that connection
 * (postgres-session.ts), so open and close cost a few statements; slots are made in the background
 * ahead of demand and reused. A slot whose episode escaped its transaction or lost its connection is
 * destroyed and replaced, never reused.
 *
 * A database per slot lets the backend measure an episode from outside while a statement runs: its
 * tables are not committed, so no other connection sees them, but their files are in the slot's
 * database, which `pg_database_size` measures (disk-watch.ts).
 */
import { ConfigError, InfrastructureError } from '@harness-s/core';
import pg from 'pg';
import type { DbbenchBackend, DbbenchSession, SessionLimits } from './backend.js';
import { redactUrl, serverAddress } from './database-url.js';
import { DiskWatch } from './disk-watch.js';
import { episodeBytesFunctionSql } from './episode-disk.js';
import { postgresHelperFunctionsSql } from './mysql-dialect.js';
import { checkRunId, newPassword, newRunId, runObjectName, runPartName } from './naming.js';
import { dropPostgresRun } from './postgres-cleanup.js';
import { connectPostgres, postgresConnection, type StatementStopper } from './postgres-client.js';
import { MessageGate } from './postgres-frames.js';
import { screenMemorySettings, screenUnrevokedCalls } from './postgres-policy.js';
import { openPostgresSession, type SessionEnd } from './postgres-session.js';
import type { DbbenchTask } from './records.js';
import { resolveLimits } from './result-collector.js';
import { SlotPool } from './slot-pool.js';
import { quotePostgres } from './table-ddl.js';

export interface PostgresBackendOptions extends SessionLimits {
  /** `postgres://user:password@host:port/database`; the user needs CREATEDB and CREATEROLE (or superuser). */
  url: string;
  /** Episodes open at once at most (one connection each); more wait (default 32). */
  maxSessions?: number;
  /** Idle slots kept ready, made in the background (default 2). */
  spareSessions?: number;
  /** Connecting gives up after this long (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Extra time after the time limit before the backend cancels a statement itself (default 2000 ms). */
  watchdogGraceMs?: number;
  /** Names the run's objects (default: random). */
  runId?: string;
}

/** A slot's database is measured again (its catalogs grow a little) when released after this long. */
const baseMeasureMs = 60_000;

/** Schema of the MySQL-compatibility functions. */
const compatSchema = 'dbbench_compat';

/** Bytes a message may take beyond its cells: the row's framing, 4 bytes per column. */
const messageOverheadBytes = 64 * 1024;

/**
 * Functions every episode could otherwise call, revoked in the run database: ending its own connection
 * (`pg_terminate_backend`, which would look like a server fault and be retried), and large objects,
 * which live outside the episode's schema where its disk limit does not see them.
 */
const revokedFunctionsSql = `DO $$ DECLARE target regprocedure; BEGIN
  FOR target IN SELECT oid::regprocedure FROM pg_proc
    WHERE pronamespace = 'pg_catalog'::regnamespace
      AND (proname IN ('pg_terminate_backend', 'loread', 'lowrite') OR proname LIKE 'lo\\_%')
  LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', target); END LOOP;
END $$;`;

interface Slot {
  /** The slot's role, and its database. */
  role: string;
  client: pg.Client;
  gate: MessageGate;
  processId: number;
  /** The size of the slot's database without an episode, and when it was measured. */
  baseBytes: number;
  measuredAt: number;
}

type UserRights = { rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean };

const userRights = async (client: pg.Client): Promise<UserRights | undefined> =>
  (
    await client.query<UserRights>(
      'SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user',
    )
  ).rows[0];

/**
 * What a run on this server gives up because its user is not a superuser (`postgres-policy.ts`), in
 * one line; null for a superuser. For `harness-s doctor`.
 */
export async function postgresUserLimits(url: string, connectTimeoutMs = 5000): Promise<string | null> {
  const client = await connectPostgres({ url, applicationName: 'hs_dbbench_probe', connectTimeoutMs });
  try {
    if ((await userRights(client))?.rolsuper) return null;
    return 'its user is not a superuser: episodes cannot run DO blocks or create functions, and their temporary files are bounded only by the time limit';
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function createPostgresBackend(options: PostgresBackendOptions): DbbenchBackend {
  const runId = checkRunId(options.runId ?? newRunId());
  const database = runObjectName(runId);
  const episodesGroup = runPartName(runId, 'episodes');
  const limits = resolveLimits(options);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const timing = { timeoutMs: limits.statementTimeoutMs, graceMs: options.watchdogGraceMs ?? 2000 };
  /**
   * Administration, connected to the URL's database: making and dropping slots, stopping and measuring
   * statements. Nothing connects to the run's database, which new slot databases copy.
   */
  let admin: pg.Pool | undefined;
  let superuser = false;
  let slotCount = 0;
  let started: Promise<void> | undefined;

  const adminClient = (): pg.Pool => {
    if (!admin) throw new InfrastructureError('the PostgreSQL backend is not started', { code: 'db-not-started' });
    return admin;
  };

  const stopper: StatementStopper = {
    cancel: async (processId) => {
      await adminClient().query('SELECT pg_cancel_backend($1)', [processId]);
    },
    terminate: async (processId) => {
      await adminClient().query('SELECT pg_terminate_backend($1)', [processId]);
    },
  };

  /** The sizes of slot databases, for statements that run long. */
  const databaseSizes = async (names: readonly string[]): Promise<Map<string, number>> => {
    const result = await adminClient().query<{ name: string; bytes: string | null }>(
      'SELECT d.datname AS name, pg_database_size(d.oid)::text AS bytes FROM pg_database d WHERE d.datname = ANY($1)',
      [names],
    );
    return new Map(result.rows.flatMap((row) => (row.bytes === null ? [] : [[row.name, Number(row.bytes)] as const])));
  };
  const diskWatch = new DiskWatch({ measure: databaseSizes });

  /** Creates the run's template database with the compatibility functions, episodes kept out of everything else. */
  const setUp = async (): Promise<void> => {
    const server = await connectPostgres({ url: options.url, applicationName: database, connectTimeoutMs });
    try {
      const role = await userRights(server);
      superuser = role?.rolsuper ?? false;
      if (!superuser && !(role?.rolcreatedb && role.rolcreaterole)) {
        throw new ConfigError(
          `the user of ${redactUrl(options.url)} needs CREATEDB and CREATEROLE (or superuser) to give each episode its own role`,
          { code: 'db-privileges' },
        );
      }
      await server.query(`CREATE DATABASE ${database} TEMPLATE template0`);
      await server.query(
        `COMMENT ON DATABASE ${database} IS 'harness-s dbbench run ${runId}: removed when the run ends, or by harness-s cleanup'`,
      );
      await server.query(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
      // Episode roles are members of one group, which the template's schema privileges name.
      await server.query(`CREATE ROLE ${episodesGroup} NOLOGIN`);
    } finally {
      await server.end().catch(() => undefined);
    }
    // The helpers are owned by the admin and only executable by episodes, which create in `public` only.
    const template = await connectPostgres({ url: options.url, database, applicationName: database, connectTimeoutMs });
    try {
      await template.query(
        `BEGIN; REVOKE ALL ON SCHEMA public FROM PUBLIC; GRANT USAGE, CREATE ON SCHEMA public TO ${episodesGroup};
         CREATE SCHEMA ${compatSchema}; SET LOCAL search_path TO ${compatSchema}; ${postgresHelperFunctionsSql};
         ${episodeBytesFunctionSql} GRANT USAGE ON SCHEMA ${compatSchema} TO PUBLIC; ${superuser ? revokedFunctionsSql : ''} COMMIT;`,
      );
    } finally {
      await template.end().catch(() => undefined);
    }
    const address = serverAddress(options.url, 5432, 'postgres');
    admin = new pg.Pool({
      host: address.host,
      port: address.port,
      user: address.user,
      password: address.password,
      database: address.database || 'postgres',
      application_name: database,
      connectionTimeoutMillis: connectTimeoutMs,
      max: 3,
    });
    admin.on('error', () => undefined);
  };

  /** A new slot: its role, its database, its connection. */
  const createSlot = async (): Promise<Slot> => {
    slotCount += 1;
    const role = runPartName(runId, slotCount);
    const password = newPassword();
    const quoted = quotePostgres(role);
    // Temporary files (sorts, hashes) live outside the database: the superuser caps them at the disk
    // limit. Another user becomes a member of the role, which lets it cancel the role's statements.
    const tempFiles = superuser
      ? `ALTER ROLE ${quoted} SET temp_file_limit TO '${Math.max(1, Math.floor(limits.maxEpisodeBytes / 1024))}kB';`
      : `GRANT ${quoted} TO CURRENT_USER;`;
    await adminClient().query(
      `CREATE ROLE ${quoted} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION CONNECTION LIMIT 2 IN ROLE ${episodesGroup};
       ALTER ROLE ${quoted} SET search_path TO public, ${compatSchema};
       ALTER ROLE ${quoted} SET statement_timeout TO ${limits.statementTimeoutMs}; ${tempFiles}`,
    );
    try {
      // CREATE DATABASE runs alone, outside a transaction.
      await adminClient().query(`CREATE DATABASE ${quoted} TEMPLATE ${database}`);
      await adminClient().query(
        `REVOKE ALL ON DATABASE ${quoted} FROM PUBLIC; GRANT CONNECT, TEMPORARY ON DATABASE ${quoted} TO ${quoted}`,
      );
      const baseBytes = (await databaseSizes([role])).get(role) ?? 0;
      const gate = new MessageGate(limits.maxResultBytes + messageOverheadBytes);
      const client = await connectPostgres({
        url: options.url,
        user: role,
        password,
        database: role,
        applicationName: database,
        connectTimeoutMs,
        textValues: true,
        gate,
      });
      const processId = (client as unknown as { processID: number }).processID;
      return { role, client, gate, processId, baseBytes, measuredAt: performance.now() };
    } catch (error) {
      await dropSlot(role);
      throw error;
    }
  };

  /** Drops a slot's database and role (ending any connection left). */
  const dropSlot = async (role: string): Promise<void> => {
    const quoted = quotePostgres(role);
    await adminClient()
      .query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`)
      .catch(() => undefined);
    await adminClient()
      .query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'; DROP ROLE IF EXISTS ${quoted};`,
      )
      .catch(() => undefined);
  };

  /** Measures a slot's database again before it serves the next episode, when it was measured long ago. */
  const refreshBase = async (slot: Slot): Promise<void> => {
    if (performance.now() - slot.measuredAt < baseMeasureMs) return;
    const bytes = (await databaseSizes([slot.role]).catch(() => null))?.get(slot.role);
    if (bytes !== undefined) slot.baseBytes = bytes;
    slot.measuredAt = performance.now();
  };

  const pool = new SlotPool<Slot>({
    maxSlots: options.maxSessions ?? 32,
    spareSlots: options.spareSessions ?? 2,
    create: createSlot,
    destroy: async (slot) => {
      await slot.client.end().catch(() => undefined);
      await dropSlot(slot.role);
    },
  });

  const start = (): Promise<void> => {
    started ??= setUp().then(
      () => pool.fillSpares(),
      async (error: unknown) => {
        started = undefined;
        await admin?.end().catch(() => undefined);
        admin = undefined;
        await dropPostgresRun(options.url, runId, connectTimeoutMs).catch(() => undefined);
        throw error;
      },
    );
    return started;
  };

  return {
    name: 'postgres',
    dialect: 'postgres',
    start,

    async openSession(task: DbbenchTask): Promise<DbbenchSession> {
      await start();
      const slot = await pool.lease();
      const watchDisk = (onOver: () => void) =>
        diskWatch.watch({ key: slot.role, baseBytes: slot.baseBytes, limitBytes: limits.maxEpisodeBytes, onOver });
      return openPostgresSession(postgresConnection(slot.client, slot.gate, stopper, timing, watchDisk), task, {
        schema: 'public',
        limits,
        screen: superuser
          ? screenMemorySettings
          : (sql: string) => screenMemorySettings(sql) ?? screenUnrevokedCalls(sql),
        release: async (end: SessionEnd) => {
          const discard = end.dirty || end.broken;
          if (!discard) await refreshBase(slot);
          await pool.release(slot, discard);
        },
      });
    },

    sessionsInUse: () => pool.inUse,

    async close(): Promise<void> {
      if (!started) return;
      await started.catch(() => undefined);
      diskWatch.close();
      await pool.close();
      await admin?.end().catch(() => undefined);
      admin = undefined;
      started = undefined;
      await dropPostgresRun(options.url, runId, connectTimeoutMs);
    },
  };
}
