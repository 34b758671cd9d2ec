/**
 * What an episode may run on PGlite. The embedded engine runs every statement as its superuser, and one
 * engine serves episode after episode, so privileges cannot keep an episode to its own tables: a file
 * written with COPY would be read back by the next episode, `COPY ... TO PROGRAM` blocks the engine
 * until the time limit restarts it, and writes to the system catalogs would change the engine for every
 * later episode. Statements that could reach beyond the episode's tables are therefore refused before
 * they run: COPY, DO and LOAD; creating functions, procedures, triggers, rules, extensions, roles and
 * other server objects (only tables, views, indexes, sequences, schemas without objects inside them,
 * and materialized views); `allow_system_table_mods`; the
 * functions of server files, programs, large objects and server administration, and those that run
 * SQL given as text; `pg_sleep`, which only a restart of the engine could stop; and any statement that
 * changes data or definitions while naming a system catalog (`pg_...`). The screen reads the statement
 * as PostgreSQL does, once with backslash escapes in plain strings and once without (the agent may
 * switch `standard_conforming_strings`); either reading is enough to refuse.
 */
import { type PostgresToken, screenEitherReading } from './postgres-lexer.js';

/** Statements refused by their first word. */
const refusedStatements = new Set(['COPY', 'DO', 'LOAD', 'IMPORT', 'SECURITY', 'REASSIGN', 'CALL']);

/** The objects CREATE, ALTER and DROP may name (after modifiers such as TEMP, UNIQUE, OR REPLACE). */
const allowedObjects = new Set(['TABLE', 'VIEW', 'INDEX', 'SEQUENCE', 'SCHEMA', 'MATERIALIZED']);
const objectModifiers = new Set([
  'OR',
  'REPLACE',
  'TEMP',
  'TEMPORARY',
  'UNLOGGED',
  'GLOBAL',
  'LOCAL',
  'UNIQUE',
  'RECURSIVE',
]);

/**
 * Functions refused anywhere: server files and programs, large objects, server administration, SQL run
 * from text, replication, sleeping, settings by function.
 */
const refusedFunctions =
  /^(?:pg_read_\w+|pg_stat_file|pg_ls_\w+|pg_file_\w+|pg_logdir_ls|lo_\w+|loread|lowrite|pg_reload_conf|pg_rotate_logfile\w*|pg_promote|pg_terminate_backend|pg_cancel_backend|pg_switch_wal|pg_create_restore_point|pg_(?:start|stop)_backup|pg_backup_\w+|pg_current_logfile|pg_import_system_collations|pg_log_backend_memory_contexts|pg_create_\w*slot|pg_drop_replication_slot|pg_copy_\w*slot|pg_replication_\w+|pg_logical_\w+|binary_upgrade_\w+|set_config|query_to_xml\w*|ts_stat|ts_rewrite|dblink\w*|pg_sleep\w*)$/i;

/** Words that make a statement starting like a read change data. */
const writingWords = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const readingStarts = new Set(['SELECT', 'VALUES', 'TABLE', 'SHOW', 'WITH']);

const why =
  'PGlite, the embedded engine, runs as superuser, so statements that could reach its files, programs or catalogs are not available here';

const upper = (token: PostgresToken | undefined): string => (token?.kind === 'word' ? token.text.toUpperCase() : '');

/** The reason one statement's significant tokens are refused, or null. */
function screenTokens(tokens: readonly PostgresToken[]): string | null {
  if (tokens.some((token) => token.unicodeEscapes)) return `U& strings and names are refused: ${why}`;
  for (const token of tokens) {
    const name = token.kind === 'word' || token.kind === 'quoted-identifier' ? token.value : '';
    if (refusedFunctions.test(name)) return `${name} is refused: ${why}`;
  }
  const statements: PostgresToken[][] = [[]];
  for (const token of tokens) {
    if (token.text === ';') statements.push([]);
    else statements.at(-1)?.push(token);
  }
  for (const statement of statements) {
    const start = statement.findIndex((token) => token.text !== '(');
    const first = upper(statement[start]);
    if (first === '') continue;
    if (refusedStatements.has(first)) return `${first} is refused: ${why}`;
    if (first === 'ALTER' && upper(statement[start + 1]) === 'SYSTEM') return `ALTER SYSTEM is refused: ${why}`;
    if (['CREATE', 'ALTER', 'DROP'].includes(first)) {
      let index = start + 1;
      while (objectModifiers.has(upper(statement[index]))) index += 1;
      const object = upper(statement[index]);
      if (!allowedObjects.has(object)) return `${first} ${object || '...'} is refused: ${why}`;
      // CREATE SCHEMA may hold CREATE sub-commands (a trigger among them), which the check above never sees.
      if (object === 'SCHEMA' && statement.slice(index + 1).some((token) => upper(token) === 'CREATE'))
        return `CREATE SCHEMA with objects inside it is refused: ${why}`;
    }
    if (statement.some((token) => /^allow_system_table_mods$/i.test(token.value)))
      return `allow_system_table_mods is refused: ${why}`;
    const writes = !readingStarts.has(first) || statement.some((token) => writingWords.has(upper(token)));
    const catalog = statement.find(
      (token) => (token.kind === 'word' || token.kind === 'quoted-identifier') && /^pg_/i.test(token.value),
    );
    if (writes && catalog) {
      return `a statement that changes data or definitions may not name the system catalog ${catalog.value}: ${why}`;
    }
  }
  return null;
}

/** The observation for a statement PGlite may not run (see the module comment), or null. */
export function screenPgliteStatement(sql: string): string | null {
  return screenEitherReading(sql, screenTokens);
}
