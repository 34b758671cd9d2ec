/**
 * The modified-table hash AgentBench uses to score INSERT/UPDATE/DELETE tasks. On MySQL it runs
 *   select md5(group_concat(rowhash order by rowhash)) as hash
 *   from( SELECT substring(MD5(CONCAT_WS(',', `c1`,`c2`)), 1, 5) AS rowhash FROM `t`) as sub;
 * over every column of the original table, and compares `str(fetchall())` with the record's `answer_md5`.
 * `tableHash` computes the same value in plain code; `tableHashSql` writes the query for MySQL or PostgreSQL.
 */
import { createHash } from 'node:crypto';

/**
 * MySQL's default `group_concat_max_len`. AgentBench runs the stock `mysql` Docker image (MySQL 8),
 * where GROUP_CONCAT silently cuts its result to 1024 bytes: with 5-character hashes plus commas that
 * is 170 whole rows and 4 characters of the 171st, so every row after the 171st smallest hash has no
 * influence on the answer. MariaDB (1 MiB by default since 10.2.4) does not cut tables of this size.
 */
export const MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN = 1024;

/** Options for `tableHash` and `tableHashSql`. */
export interface TableHashOptions {
  /**
   * Byte length GROUP_CONCAT's result is cut to before the final md5; defaults to
   * `MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN`. `Number.POSITIVE_INFINITY` disables the cut.
   */
  groupConcatMaxLen?: number;
}

function md5Hex(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/**
 * The hash of a table given its rows, each cell in the original column order (text as stored in the
 * TEXT columns, or null). Per row: CONCAT_WS(',') of the non-null cells (all-null rows give ''), md5,
 * first 5 hex digits; then those sorted (hex digits sort the same under every collation), joined by
 * ',', cut to `groupConcatMaxLen` and hashed again. An empty table gives null, as MySQL's md5(NULL).
 */
export function tableHash(
  rows: ReadonlyArray<ReadonlyArray<string | null>>,
  options: TableHashOptions = {},
): string | null {
  if (rows.length === 0) return null;
  const rowHashes = rows.map((row) => md5Hex(row.filter((cell) => cell !== null).join(',')).slice(0, 5));
  rowHashes.sort();
  const joined = rowHashes.join(',');
  // The joined text is ASCII, so characters and bytes coincide.
  const limit = options.groupConcatMaxLen ?? MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN;
  return md5Hex(joined.length > limit ? joined.slice(0, limit) : joined);
}

function requireNames(tableName: string, columns: readonly string[]): void {
  // Neither engine accepts an empty identifier; AgentBench's dev record 5 has one and cannot be loaded.
  if (tableName === '') throw new Error('tableHashSql: the table name is empty');
  if (columns.length === 0) throw new Error(`tableHashSql: table ${tableName} has no columns`);
  if (columns.includes('')) throw new Error(`tableHashSql: table ${tableName} has an empty column name`);
}

/** A MySQL identifier in backticks, embedded backticks doubled. */
function mysqlIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** A PostgreSQL identifier in double quotes, embedded double quotes doubled. */
function postgresIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** PostgreSQL functions take at most 100 arguments; wider tables pass their columns as one array. */
const POSTGRES_MAX_FUNCTION_ARGUMENTS = 100;

/**
 * The engine-side hash query; its single row holds the hash in column `hash`.
 * - mysql: AgentBench's text exactly (v0.2 and main, spacing included). AgentBench pastes names into
 *   backticks as they are; embedded backticks are doubled here so such names still work. The cut to
 *   `group_concat_max_len` happens in the server, so `options` does not apply.
 * - postgres: the same value via `md5(string_agg(rowhash, ',' ORDER BY rowhash COLLATE "C"))` and
 *   `concat_ws` over double-quoted names (concat_ws skips NULLs as MySQL's CONCAT_WS does). MySQL's
 *   GROUP_CONCAT cut is reproduced with `left(..., groupConcatMaxLen)` (default 1024) so both engines
 *   agree on tables of more than 170 rows; pass `Number.POSITIVE_INFINITY` for the plain form.
 */
export function tableHashSql(
  dialect: 'mysql' | 'postgres',
  tableName: string,
  columns: readonly string[],
  options: TableHashOptions = {},
): string {
  requireNames(tableName, columns);
  if (dialect === 'mysql') {
    return (
      'select md5(group_concat(rowhash order by rowhash)) as hash ' +
      `from( SELECT substring(MD5(CONCAT_WS(',', ${columns.map(mysqlIdentifier).join(',')})), 1, 5) AS rowhash ` +
      `FROM ${mysqlIdentifier(tableName)}) as sub;`
    );
  }
  const names = columns.map(postgresIdentifier).join(', ');
  const cells = columns.length < POSTGRES_MAX_FUNCTION_ARGUMENTS ? names : `VARIADIC ARRAY[${names}]::text[]`;
  const limit = options.groupConcatMaxLen ?? MYSQL_DEFAULT_GROUP_CONCAT_MAX_LEN;
  const aggregate = `string_agg(rowhash, ',' ORDER BY rowhash COLLATE "C")`;
  const cut = Number.isFinite(limit) ? `left(${aggregate}, ${Math.floor(limit)})` : aggregate;
  return (
    `select md5(${cut}) as hash ` +
    `from (SELECT substring(md5(concat_ws(',', ${cells})), 1, 5) AS rowhash FROM ${postgresIdentifier(tableName)}) as sub;`
  );
}
