/**
 * What the MySQL-to-PostgreSQL translation (`translateMysqlToPostgres` in mysql-dialect.ts) takes and
 * gives: the table it translates for, its rules by name, its options and its result.
 */

/** The one table a DBBench task works on; every column is TEXT, as AgentBench creates it. */
export interface MysqlTableSchema {
  readonly table: string;
  readonly columns: readonly string[];
}

/** The rules of the translation, in the order docs/sql-translation.md describes them. */
export const translationRules = [
  'trailing-semicolon',
  'backtick-identifier',
  'bare-identifier',
  'string-escapes',
  'double-quoted-string',
  'adjacent-strings',
  'numeric-literal-text',
  'case-insensitive-comparison',
  'numeric-comparison',
  'logical-operators',
  'hash-comment',
] as const;

/** One rule of the translation. */
export type TranslationRule = (typeof translationRules)[number];

/** Translated SQL, and the rules that changed something, in the order they first fired (for logs). */
export interface MysqlTranslation {
  readonly sql: string;
  readonly notes: TranslationRule[];
}

/** Switches for `translateMysqlToPostgres`. */
export interface TranslationOptions {
  /** Rules to leave out, to measure what each rule is needed for. */
  readonly disabledRules?: Iterable<TranslationRule>;
  /**
   * Match table names case-sensitively, as MySQL does on Linux (lower_case_table_names=0, AgentBench's
   * server); a table name in the wrong case then fails on PostgreSQL too. Off by default: column names
   * are case-insensitive in MySQL on every platform, table names on Windows and macOS.
   */
  readonly caseSensitiveTableNames?: boolean;
}
