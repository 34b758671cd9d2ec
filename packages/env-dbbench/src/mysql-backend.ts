/**
 * DBBench on a MySQL 8 or MariaDB server. DDL is what costs on MySQL (every CREATE / DROP TABLE
 * waits for the disk), so tables are kept rather than remade: a "store" is a database
 * `hs_dbbench_<run>_s<n>` with its own user of the same name that has privileges on that database
 * only, holding the committed initial table of one task. An episode leases a pooled connection,
 * switches it to the store's user (COM_CHANGE_USER, which also resets the session), applies
 * AgentBench's session settings and runs as one transaction that close() rolls back
 * (mysql-session.ts). The next episode of the same task reuses the store without any DDL; a task
 * with no free store gets an empty store (made in the background ahead of demand) and its table.
 * A store whose episode committed (DDL, or a lost connection) is dropped, never reused.
 *
 * The disk of a store is measured from the administration connection (mysql-disk.ts): after the
 * statements that may write, and while a statement runs long (disk-watch.ts).
 */
import { ConfigError, InfrastructureError } from '@harness-s/core';
import mysql from 'mysql2';
import type { DbbenchBackend, DbbenchSession, SessionLimits } from './backend.js';
import { redactUrl, serverAddress } from './database-url.js';
import { DiskWatch } from './disk-watch.js';
import { dropMysqlRun } from './mysql-cleanup.js';
import { closeMysql, connectMysql, type MysqlStopper, runMysql } from './mysql-client.js';
import { countedBytes, type StoreDisk, storeDiskSql, storeDisks } from './mysql-disk.js';
import { PacketGate } from './mysql-frames.js';
import { MysqlSession } from './mysql-session.js';
import { checkRunId, newPassword, newRunId, runObjectName, runPartName } from './naming.js';
import type { DbbenchTask } from './records.js';
import { resolveLimits } from './result-collector.js';
import { SlotPool } from './slot-pool.js';
import { StorePool } from './store-pool.js';
import { createTableSql, insertRowsStatements, quoteMysql } from './table-ddl.js';

/** MySQL 8's default sql_mode, which AgentBench's stock `mysql` Docker image runs with. */
export const agentBenchSqlMode =
  'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

export interface MysqlBackendOptions extends SessionLimits {
  /** `mysql://user:password@host:port/database`; the user needs CREATE USER and GRANT OPTION (e.g. root). */
  url: string;
  /** Episodes open at once at most (one connection each); more wait (default 32). */
  maxSessions?: number;
  /** Idle connections kept ready (default 2). */
  spareSessions?: number;
  /** Stores kept at most; the least recently used free ones are dropped beyond it (default 256). */
  maxStores?: number;
  /** Empty stores kept ready for tasks without a free store, made in the background (default 2). */
  spareStores?: number;
  connectTimeoutMs?: number;
  /** Extra time after the time limit before the backend kills a statement itself (default 2000 ms). */
  watchdogGraceMs?: number;
  /** sql_mode of every episode (default `agentBenchSqlMode`). */
  sqlMode?: string;
  runId?: string;
}

/**
 * What an episode's user may do in its own database: everything AgentBench's root could, but events and
 * temporary tables (the server does not report what they take, so the disk limit could not bound them).
 */
const storePrivileges =
  'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, LOCK TABLES, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EXECUTE, TRIGGER';

/** A database name in a GRANT, where `_` and `%` are wildcards. */
const grantDatabase = (name: string): string => quoteMysql(name.replaceAll('_', '\\_').replaceAll('%', '\\%'));

interface Store {
  name: string;
  password: string;
  /** The connection that served this store's last episode, which may be ready for the next. */
  lastWorker?: Worker;
}

/** A pooled connection, and whether it can start the next episode of its store at once. */
interface Worker {
  connection: mysql.Connection;
  /** Bounds every packet the server sends on `connection`. */
  gate: PacketGate;
  /**
   * The store whose user it is logged in as, when its session is exactly as opening left it (the last
   * episode changed nothing in the session) and its next transaction has begun: an episode of that
   * store then starts without a round trip.
   */
  readyFor: Store | null;
}

export function createMysqlBackend(options: MysqlBackendOptions): DbbenchBackend {
  const runId = checkRunId(options.runId ?? newRunId());
  const lockName = runObjectName(runId);
  const limits = resolveLimits(options);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const graceMs = options.watchdogGraceMs ?? 2000;
  const idleUser = { name: runPartName(runId, 'idle'), password: newPassword() };
  /** The run's lock holder, also used to stop statements (KILL QUERY). */
  let control: mysql.Connection | undefined;
  let admin: mysql.Pool | undefined;
  let charset = 'UTF8MB4_GENERAL_CI';
  let mariadb = true;
  let settingsSql = '';
  let storeCount = 0;
  let started: Promise<void> | undefined;

  const controlConnection = (): mysql.Connection => {
    if (!control) throw new InfrastructureError('the MySQL backend is not started', { code: 'db-not-started' });
    return control;
  };
  const adminQuery = (sql: string, params: unknown[] = []): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (!admin)
        return reject(new InfrastructureError('the MySQL backend is not started', { code: 'db-not-started' }));
      admin.query({ sql, values: params }, (error, rows) => (error ? reject(error) : resolve(rows)));
    });

  const stopper: MysqlStopper = {
    killQuery: async (threadId) => {
      await runMysql(controlConnection(), `KILL QUERY ${Number(threadId)}`);
    },
    killConnection: async (threadId) => {
      await runMysql(controlConnection(), `KILL ${Number(threadId)}`);
    },
  };

  /** What the given stores take now (mysql-disk.ts). */
  const measureStores = async (names: readonly string[]): Promise<Map<string, StoreDisk>> => {
    const answer = await adminQuery(storeDiskSql(mariadb), [names, names, names]);
    // MySQL 8 answers a setting first, then the rows.
    const rows = (mariadb ? answer : (answer as unknown[])[1]) as Array<{
      store: unknown;
      engine: unknown;
      bytes: unknown;
    }>;
    return storeDisks(names, rows);
  };
  const diskWatch = new DiskWatch({
    measure: async (names) =>
      new Map([...(await measureStores(names))].map(([name, disk]) => [name, countedBytes(disk)])),
  });

  /** Makes a store again with the task's table as at the start (after an episode went over the disk limit). */
  const rebuildStore = async (store: Store, task: DbbenchTask): Promise<void> => {
    const name = quoteMysql(store.name);
    const rows = insertRowsStatements('mysql', task);
    await adminQuery(
      [
        'SET SESSION lock_wait_timeout = 10',
        `DROP DATABASE IF EXISTS ${name}`,
        `CREATE DATABASE ${name} CHARACTER SET utf8mb4`,
        `USE ${name}`,
        createTableSql('mysql', task).replace(/;$/, ''),
        ...rows.map((item) => item.sql),
      ].join('; '),
      rows.flatMap((item) => item.params),
    );
  };

  const destroyStore = async (store: Store): Promise<void> => {
    await adminQuery(`DROP DATABASE IF EXISTS ${quoteMysql(store.name)}; DROP USER IF EXISTS ?@'%'`, [store.name]);
  };

  const stores = new StorePool<Store>({
    maxStores: options.maxStores ?? 256,
    spareEmpty: options.spareStores ?? 2,
    create: async () => {
      storeCount += 1;
      const store = { name: runPartName(runId, `s${storeCount}`), password: newPassword() };
      await adminQuery(
        `CREATE DATABASE ${quoteMysql(store.name)} CHARACTER SET utf8mb4; CREATE USER ?@'%' IDENTIFIED BY ?; GRANT ${storePrivileges} ON ${grantDatabase(store.name)}.* TO ?@'%'`,
        [store.name, store.password, store.name],
      );
      return store;
    },
    destroy: destroyStore,
  });

  const workers = new SlotPool<Worker>({
    maxSlots: options.maxSessions ?? 32,
    spareSlots: options.spareSessions ?? 2,
    create: async () => {
      // A row may take the byte cap plus its framing.
      const gate = new PacketGate(limits.maxResultBytes + 64 * 1024);
      const connection = await connectMysql({
        url: options.url,
        user: idleUser.name,
        password: idleUser.password,
        database: '',
        connectTimeoutMs,
        charset,
        // AgentBench's client runs every statement of a call (multi=True); the first result is shown.
        multipleStatements: true,
        gate,
      });
      return { readyFor: null, connection, gate };
    },
    destroy: (worker) => closeMysql(worker.connection),
  });

  const setUp = async (): Promise<void> => {
    control = await connectMysql({ url: options.url, connectTimeoutMs });
    const [server] = await runMysql<Array<{ version: string; locked: number }>>(
      control,
      'SELECT VERSION() AS version, GET_LOCK(?, 0) AS locked',
      [lockName],
    );
    if (Number(server?.locked) !== 1)
      throw new ConfigError(`run id ${runId} is in use on this server`, { code: 'run-id-in-use' });
    mariadb = /mariadb/i.test(server?.version ?? '');
    // The collation of each engine's utf8mb4 default: AgentBench's MySQL 8 compares with 0900_ai_ci.
    charset = mariadb ? 'UTF8MB4_GENERAL_CI' : 'UTF8MB4_0900_AI_CI';
    const timeLimit = mariadb
      ? `max_statement_time = ${limits.statementTimeoutMs / 1000}`
      : `max_execution_time = ${limits.statementTimeoutMs}`;
    // MariaDB caps each internal temporary table on disk (a recursive CTE's, a sort's) at the disk limit.
    const tempTables = mariadb ? `, tmp_disk_table_size = ${limits.maxEpisodeBytes}` : '';
    settingsSql = `SET SESSION sql_mode = ${mysql.escape(options.sqlMode ?? agentBenchSqlMode)}, group_concat_max_len = 1024, ${timeLimit}${tempTables}`;
    const address = serverAddress(options.url, 3306, 'root');
    admin = mysql.createPool({
      host: address.host,
      port: address.port,
      user: address.user,
      password: address.password,
      connectTimeout: connectTimeoutMs,
      multipleStatements: true,
      connectionLimit: 3,
    });
    try {
      await adminQuery("CREATE USER ?@'%' IDENTIFIED BY ?", [idleUser.name, idleUser.password]);
    } catch (error) {
      throw new ConfigError(
        `the user of ${redactUrl(options.url)} cannot create users (${(error as Error).message}); DBBench gives each episode its own user and needs CREATE USER and GRANT OPTION`,
        { code: 'db-privileges', cause: error },
      );
    }
  };

  const start = (): Promise<void> => {
    started ??= setUp().then(
      () => {
        workers.fillSpares();
        stores.fillSpares();
      },
      async (error: unknown) => {
        started = undefined;
        await shutDown();
        throw error;
      },
    );
    return started;
  };

  /** Closes every connection and drops every database and user of the run. */
  const shutDown = async (): Promise<void> => {
    diskWatch.close();
    await workers.close();
    // Idle stores go in parallel over the admin pool; what is left (stores of open episodes, the idle user) after.
    await Promise.all((await stores.close()).map((store) => destroyStore(store).catch(() => undefined)));
    if (control) await dropMysqlRun(control, runId).catch(() => undefined);
    await new Promise<void>((resolve) => (admin ? admin.end(() => resolve()) : resolve()));
    if (control) await closeMysql(control);
    admin = undefined;
    control = undefined;
  };

  const changeUser = (connection: mysql.Connection, store: Store): Promise<void> =>
    new Promise((resolve, reject) =>
      connection.changeUser({ user: store.name, password: store.password, database: store.name, charset }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );

  return {
    name: 'mysql',
    dialect: 'mysql',
    start,

    async openSession(task: DbbenchTask): Promise<DbbenchSession> {
      await start();
      // Prefer a kept store whose last connection is idle: that pair may need no work at all.
      const lease = await stores.lease(
        task.id,
        (store) => store.lastWorker !== undefined && workers.isIdle(store.lastWorker),
      );
      let worker: Worker | undefined;
      try {
        worker = await workers.lease(lease.store.lastWorker);
        if (worker.readyFor !== lease.store || lease.fresh) {
          worker.readyFor = null;
          await changeUser(worker.connection, lease.store);
          // As AgentBench creates it: TEXT columns, then one multi-row INSERT with placeholders; all
          // of it, the session settings and the transaction in one round trip.
          const rows = lease.fresh ? insertRowsStatements('mysql', task) : [];
          const statements = [
            ...(lease.fresh ? [createTableSql('mysql', task).replace(/;$/, '')] : []),
            ...rows.map((item) => item.sql),
            settingsSql,
            'START TRANSACTION',
          ];
          await runMysql(
            worker.connection,
            statements.join('; '),
            rows.flatMap((item) => item.params),
          );
        }
      } catch (error) {
        await stores.release(lease.store, task.id, true);
        if (worker) await workers.release(worker, true);
        if (InfrastructureError.isInstance(error) || ConfigError.isInstance(error)) throw error;
        throw new InfrastructureError(`could not open an episode of ${task.id}: ${(error as Error).message}`, {
          code: 'db-setup-failed',
          cause: error,
        });
      }
      const { store } = lease;
      const episodeWorker = worker;
      episodeWorker.readyFor = null;
      return new MysqlSession(task, {
        connection: episodeWorker.connection,
        gate: episodeWorker.gate,
        database: store.name,
        limits,
        stopper,
        graceMs,
        closeSql: 'ROLLBACK; START TRANSACTION',
        measureDisk: async () => (await measureStores([store.name])).get(store.name) ?? { bytes: 0, unmeasured: [] },
        rebuildStore: () => rebuildStore(store, task),
        watchDisk: (onOver) =>
          diskWatch.watch({ key: store.name, baseBytes: 0, limitBytes: limits.maxEpisodeBytes, onOver }),
        release: async (end) => {
          const reusable = !end.dirty && !end.broken;
          episodeWorker.readyFor = reusable && !end.sessionTouched ? store : null;
          store.lastWorker = reusable ? episodeWorker : undefined;
          await Promise.all([stores.release(store, task.id, !reusable), workers.release(episodeWorker, end.broken)]);
        },
      });
    },

    sessionsInUse: () => workers.inUse,

    async close(): Promise<void> {
      if (!started) return;
      await started.catch(() => undefined);
      started = undefined;
      await shutDown();
    },
  };
}
