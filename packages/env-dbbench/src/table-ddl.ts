import type { SqlDialect } from './backend.js';
import type { DbbenchTask } from './records.js';

/** `name` as a PostgreSQL delimited identifier. */
export const quotePostgres = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** `name` as a MySQL quoted identifier. */
export const quoteMysql = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

export const quoteIdentifier = (dialect: SqlDialect, name: string): string =>
  dialect === 'mysql' ? quoteMysql(name) : quotePostgres(name);

/** The table as AgentBench creates it: every column TEXT, every name quoted. */
export function createTableSql(dialect: SqlDialect, task: DbbenchTask): string {
  const columns = task.columns.map((column) => `${quoteIdentifier(dialect, column)} TEXT`).join(', ');
  return `CREATE TABLE ${quoteIdentifier(dialect, task.tableName)} (${columns});`;
}

/**
 * The rows as AgentBench inserts them: one multi-row INSERT with driver placeholders (split only
 * where a statement would pass the engine's limit of bound parameters).
 */
export function insertRowsStatements(
  dialect: SqlDialect,
  task: DbbenchTask,
): Array<{ sql: string; params: unknown[] }> {
  if (task.rows.length === 0) return [];
  const width = task.columns.length;
  const rowsPerStatement = Math.max(1, Math.floor(60_000 / width));
  const table = quoteIdentifier(dialect, task.tableName);
  const columnList = task.columns.map((column) => quoteIdentifier(dialect, column)).join(', ');
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  for (let start = 0; start < task.rows.length; start += rowsPerStatement) {
    const chunk = task.rows.slice(start, start + rowsPerStatement);
    let parameter = 0;
    const tuples = chunk.map(
      () =>
        `(${Array.from({ length: width }, () => {
          parameter += 1;
          return dialect === 'mysql' ? '?' : `$${parameter}`;
        }).join(', ')})`,
    );
    statements.push({ sql: `INSERT INTO ${table} (${columnList}) VALUES ${tuples.join(', ')}`, params: chunk.flat() });
  }
  return statements;
}

/** A PostgreSQL string literal that means the same whatever `standard_conforming_strings` is. */
const postgresLiteral = (value: string): string => `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * The rows as one multi-row INSERT with the values written as literals (PostgreSQL), so that the
 * whole table can be made in the same round trip as the statements before it. The stored text is
 * exactly what `insertRowsStatements` stores; empty when the table has no rows.
 */
export function insertRowsLiteralSql(task: DbbenchTask): string {
  if (task.rows.length === 0) return '';
  const columnList = task.columns.map(quotePostgres).join(', ');
  const tuples = task.rows.map(
    (row) => `(${row.map((cell) => (cell === null ? 'NULL' : postgresLiteral(cell))).join(', ')})`,
  );
  return `INSERT INTO ${quotePostgres(task.tableName)} (${columnList}) VALUES ${tuples.join(', ')};`;
}
