/**
 * How much disk an episode's tables take on PostgreSQL and PGlite, measured from inside the episode's
 * own transaction (which sees the tables it made but has not committed).
 */

/**
 * `CREATE FUNCTION episode_bytes()`, run once per database with the compatibility functions (it is
 * created in the first schema of the search_path): the bytes of every table and materialized view,
 * with their indexes and TOAST, in the session's temporary schema and in the schemas the session may
 * create objects in (its own; every schema but the system ones on PGlite, which runs as superuser).
 * Its own search_path keeps the episode's functions and operators out of it.
 */
export const episodeBytesFunctionSql = `
CREATE OR REPLACE FUNCTION episode_bytes() RETURNS bigint
  LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
  AS $$ SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'm') AND (c.relnamespace = pg_my_temp_schema() OR (
      n.nspname NOT IN ('pg_catalog', 'information_schema', 'dbbench_compat') AND n.nspname NOT LIKE 'pg\\_%'
      AND has_schema_privilege(n.oid, 'CREATE'))) $$;
`;

/**
 * The query the session runs after every agent statement: the episode's bytes, as text. It also
 * turns off `idle_in_transaction_session_timeout`, which the agent may have set: an episode waits in
 * its transaction between statements, and the server would otherwise end the connection (a fault the
 * agent caused, that would look like the server's). Its third column is `true` when the transaction
 * is no longer the episode's (`episodeMarkSql`): a statement ended it and began another, however it
 * did, without the driver's transaction state showing it.
 */
export const episodeBytesSql =
  "SELECT dbbench_compat.episode_bytes()::text, pg_catalog.set_config('idle_in_transaction_session_timeout', '0', false), (pg_catalog.current_setting('dbbench.episode_xact', true) IS DISTINCT FROM pg_catalog.txid_current()::text)::text";

/** Marks the transaction as the episode's: its id in a setting that the transaction's end resets. */
export const episodeMarkSql =
  "SELECT pg_catalog.set_config('dbbench.episode_xact', pg_catalog.txid_current()::text, true);";

/** Bytes as MiB for messages, e.g. `612 MiB`; rounded up when `up` (a size over a limit reads as over it). */
export function mebibytes(bytes: number, up = false): string {
  return `${(up ? Math.ceil : Math.round)(bytes / (1024 * 1024))} MiB`;
}
