/**
 * How much disk an episode's store (its database, mysql-backend.ts) takes on MySQL and MariaDB,
 * measured from the backend's administration connection: the store user cannot see file sizes, and
 * the measurement must also work while one of the episode's statements runs.
 *
 * InnoDB tables count the size of their files (`innodb_file_per_table`, the default), which is what
 * they take, uncommitted rows included; the files do not shrink when rows are undone, so the space an
 * episode took stays taken until its tables are made again. Aria, MyISAM, MEMORY and MERGE tables count
 * their data and index length as the server reports it. Tables of any other engine (CSV, ARCHIVE...),
 * and InnoDB tables in the shared system tablespace, cannot be measured: a store holding one counts as
 * over the limit. Temporary tables are not available to episodes (the server does not report them).
 */

/** What a store takes. */
export interface StoreDisk {
  bytes: number;
  /** Why the store cannot be measured (engines of its tables), empty when it can. */
  unmeasured: string[];
}

/** Engines whose data and index length the server reports as they are. */
const reportedEngines = new Set(['ARIA', 'MYISAM', 'MEMORY', 'MRG_MYISAM']);

/** The measuring query for the stores given as its three `?` parameters (a list each). */
export function storeDiskSql(mariadb: boolean): string {
  const tablespaces = mariadb ? 'INNODB_SYS_TABLESPACES' : 'INNODB_TABLESPACES';
  const tables = mariadb ? 'INNODB_SYS_TABLES' : 'INNODB_TABLES';
  const store = "SUBSTRING_INDEX(NAME, '/', 1)";
  // MySQL 8 caches table statistics for a day unless told not to.
  return `${mariadb ? '' : 'SET SESSION information_schema_stats_expiry = 0; '}SELECT ${store} AS store, 'InnoDB' AS engine, SUM(FILE_SIZE) AS bytes
      FROM information_schema.${tablespaces} WHERE ${store} IN (?) GROUP BY 1
    UNION ALL SELECT TABLE_SCHEMA, ENGINE, SUM(DATA_LENGTH + INDEX_LENGTH)
      FROM information_schema.TABLES
      WHERE TABLE_SCHEMA IN (?) AND TABLE_TYPE <> 'VIEW' AND ENGINE IS NOT NULL AND ENGINE <> 'InnoDB' GROUP BY 1, 2
    UNION ALL SELECT ${store}, 'InnoDB in the system tablespace', COUNT(*)
      FROM information_schema.${tables} WHERE SPACE = 0 AND ${store} IN (?) GROUP BY 1`;
}

/** The measurement of each store from the rows of `storeDiskSql`; a store without rows takes nothing. */
export function storeDisks(
  stores: readonly string[],
  rows: ReadonlyArray<{ store: unknown; engine: unknown; bytes: unknown }>,
): Map<string, StoreDisk> {
  const disks = new Map(stores.map((store) => [store, { bytes: 0, unmeasured: [] as string[] }]));
  for (const row of rows) {
    const disk = disks.get(String(row.store));
    if (!disk) continue;
    const engine = String(row.engine);
    if (engine === 'InnoDB' || reportedEngines.has(engine.toUpperCase())) disk.bytes += Number(row.bytes ?? 0);
    else if (!disk.unmeasured.includes(engine)) disk.unmeasured.push(engine);
  }
  return disks;
}

/** The bytes a measurement counts against the limit: unmeasurable stores are over any limit. */
export const countedBytes = (disk: StoreDisk): number => (disk.unmeasured.length > 0 ? Infinity : disk.bytes);

/**
 * A store whose tables take more than this after an episode is dropped rather than given to the next
 * one: its files keep the space the episode took (a task table takes tens of kilobytes).
 */
export const storeKeepBytes = 4 * 1024 * 1024;
