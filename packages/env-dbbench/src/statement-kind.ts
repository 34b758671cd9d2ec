/**
 * What an agent's statement means for the episode's transaction. Every episode runs inside one
 * transaction that close() rolls back, which is what makes resets fast. AgentBench instead commits
 * after every call on a fresh connection, so transaction control has no lasting effect there:
 * `COMMIT`, `ROLLBACK`, `BEGIN` change nothing, and a savepoint is gone by the next call. Those
 * statements are answered as AgentBench would answer them instead of being run, so they can neither
 * end the episode's transaction nor behave differently from AgentBench.
 */
import type { SqlDialect } from './backend.js';
import { isSignificant, type MysqlLexOptions, type MysqlToken, tokenizeMysql } from './mysql-lexer.js';
import { tokenizePostgres } from './postgres-lexer.js';

/** How the backend handles one agent statement. */
export type StatementKind =
  /** Only reads: when it returns more rows than may be fetched, it can be cancelled without losing work. */
  | { kind: 'read' }
  /** Anything else: run as it is. */
  | { kind: 'change' }
  /** Transaction control that has no effect in AgentBench: answered with an empty result, not run. */
  | { kind: 'no-effect' }
  /** `RELEASE` / `ROLLBACK TO` a savepoint: by the next call AgentBench's savepoints are gone. */
  | { kind: 'missing-savepoint'; savepoint: string }
  /** Not allowed in an episode; the reason is the observation. */
  | { kind: 'refused'; reason: string };

const readWords = new Set(['SELECT', 'VALUES', 'TABLE', 'SHOW', 'DESCRIBE', 'DESC']);
const noEffectWords = new Set(['COMMIT', 'BEGIN', 'START', 'END', 'ABORT', 'SAVEPOINT']);

const word = (token: MysqlToken | undefined): string =>
  token?.kind === 'word' ? token.text.toUpperCase() : token?.kind === 'quoted-identifier' ? token.value : '';

/** The name a savepoint statement refers to, after optional noise words. */
function savepointName(tokens: readonly MysqlToken[], from: number): string {
  let index = from;
  while (['WORK', 'TO', 'SAVEPOINT', 'TRANSACTION'].includes(word(tokens[index]))) index += 1;
  const token = tokens[index];
  return token?.kind === 'quoted-identifier' || token?.kind === 'string' ? token.value : (token?.text ?? '');
}

/**
 * Classifies one statement by its leading keywords (comments and whitespace skipped). A MySQL call may
 * hold several statements, all of which run: it is refused when any of them may not run (`refusedMysqlCall`).
 */
export function classifyStatement(sql: string, dialect: SqlDialect): StatementKind {
  if (dialect === 'mysql') {
    const reason = refusedMysqlCall(sql);
    if (reason) return { kind: 'refused', reason };
  }
  const tokens = significantTokens(sql, dialect);
  const first = tokens[0];
  if (!first) return { kind: 'change' };
  if (first.text === '(') return { kind: 'read' };
  const leading = word(first);
  const second = word(tokens[1]);
  if (readWords.has(leading)) return { kind: 'read' };
  if (leading === 'ROLLBACK') {
    const hasTo = tokens.slice(1, 3).some((token) => word(token) === 'TO');
    if (hasTo) return { kind: 'missing-savepoint', savepoint: savepointName(tokens, 1) };
    if (second === 'PREPARED') return { kind: 'refused', reason: 'prepared transactions are not available here' };
    return { kind: 'no-effect' };
  }
  if (leading === 'COMMIT' && second === 'PREPARED') {
    return { kind: 'refused', reason: 'prepared transactions are not available here' };
  }
  if (leading === 'START' && second !== 'TRANSACTION') return { kind: 'change' };
  if (noEffectWords.has(leading)) return { kind: 'no-effect' };
  if (leading === 'RELEASE') return { kind: 'missing-savepoint', savepoint: savepointName(tokens, 1) };
  if (leading === 'PREPARE' && second === 'TRANSACTION') {
    return { kind: 'refused', reason: 'prepared transactions are not available here' };
  }
  if (leading === 'XA') return { kind: 'refused', reason: 'XA transactions are not available here' };
  if (leading === 'KILL') return { kind: 'refused', reason: 'KILL is not available here' };
  if (leading === 'SET' && setsAutocommit(tokens)) return { kind: 'no-effect' };
  // MySQL: LOCK TABLES ends the transaction; on AgentBench's fresh connection per call it binds nothing.
  if (dialect === 'mysql' && (leading === 'LOCK' || leading === 'UNLOCK')) return { kind: 'no-effect' };
  return { kind: 'change' };
}

/**
 * A statement's tokens without comments and whitespace, as its engine reads them: PostgreSQL's
 * comments (`--x`, nested block comments) and strings (dollar quoting) are not MySQL's.
 */
function significantTokens(sql: string, dialect: SqlDialect): MysqlToken[] {
  if (dialect === 'mysql') return tokenizeMysql(sql).filter(isSignificant);
  let start = 0;
  return tokenizePostgres(sql).flatMap((token): MysqlToken[] => {
    start += token.text.length;
    if (token.kind === 'whitespace' || token.kind === 'comment') return [];
    const kind =
      token.kind === 'symbol'
        ? '(),;.'.includes(token.text)
          ? 'punctuation'
          : 'operator'
        : token.kind === 'parameter'
          ? 'word'
          : token.kind;
    return [{ kind, text: token.text, value: token.value, start: start - token.text.length }];
  });
}

/** The ways SQL modes change where MySQL's quoted tokens end: a call is read in each of them. */
const mysqlLexModes: MysqlLexOptions[] = [
  {},
  { backslashEscapes: false },
  { ansiQuotes: true },
  { ansiQuotes: true, backslashEscapes: false },
];

/** MySQL session variables whose small values make the server drop the connection, as if it failed. */
const connectionTimeouts = new Set(['WAIT_TIMEOUT', 'INTERACTIVE_TIMEOUT', 'NET_READ_TIMEOUT', 'NET_WRITE_TIMEOUT']);

/** MySQL session variables that bound what one statement's temporary tables and buffers may take. */
const resourceSettings = new Set([
  'TMP_DISK_TABLE_SIZE',
  'TMP_TABLE_SIZE',
  'MAX_HEAP_TABLE_SIZE',
  'MAX_RECURSIVE_ITERATIONS',
  'SORT_BUFFER_SIZE',
  'JOIN_BUFFER_SIZE',
]);

/** Words that start transaction control, which only a call of its own may hold (it is then answered, not run). */
const transactionWords = new Set(['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'LOCK', 'UNLOCK']);

const hiddenTransactionControl =
  "transaction control is available here only as a call's one statement (AgentBench commits after every call)";

/**
 * Why the SQL a MySQL call would run from text (`PREPARE s FROM ...`, `EXECUTE IMMEDIATE ...`) may
 * not run, or null: only a string literal, read as a call of its own, whose statement runs as it is.
 */
function refusedDynamicSql(text: MysqlToken | undefined): string | null {
  // Under ANSI_QUOTES a "..." literal reads as a name, which the server refuses there.
  const literal = text?.kind === 'string' || (text?.kind === 'quoted-identifier' && text.text.startsWith('"'));
  if (!text || !literal) return 'SQL run from text is available here only as a string literal';
  const kind = classifyStatement(text.value, 'mysql').kind;
  if (kind === 'read' || kind === 'change') return null;
  return `SQL run from text may not control the transaction or do what a call may not: ${text.value.slice(0, 60)}`;
}

/**
 * Why a MySQL call may not run, or null. Every statement of the call counts, not just the first, and
 * the call is read under every SQL mode that changes how quotes end (the agent may have set one):
 * - executable comments (those opening with `/*!`, or MariaDB's `/*M!`), which the server runs but a
 *   reader of the SQL takes for comments;
 * - `KILL` anywhere: the episode would end its own connection, which looks like a server fault;
 * - `XA` transactions, which would end the episode's transaction;
 * - `SET PASSWORD` and `ALTER USER`: the episode's user logs in again for the next episode of the task;
 * - the connection timeouts (`wait_timeout`...), with which the server would drop the connection;
 * - the settings that bound temporary tables and buffers (`tmp_disk_table_size`, `max_recursive_iterations`...);
 * - transaction control after another statement of the call (`DELETE ...; BEGIN` would commit the
 *   delete and hide it behind a new transaction), `autocommit` in a call of several statements, and
 *   `completion_type` (a COMMIT that chains);
 * - SQL run from text (`PREPARE ... FROM`, `EXECUTE IMMEDIATE`) unless it is a string literal whose
 *   statement a call could hold, so no transaction control or KILL is assembled at run time.
 * A statement run from a procedure, trigger or prepared statement is not seen here; the session tells a
 * connection its own statement killed from a failure (mysql-session.ts).
 */
export function refusedMysqlCall(sql: string): string | null {
  for (const mode of mysqlLexModes) {
    const tokens = tokenizeMysql(sql, mode);
    if (tokens.some((token) => token.kind === 'comment' && /^\/\*m?!/i.test(token.text))) {
      return 'executable comments (/*! ... */) are not available here';
    }
    const significant = tokens.filter(isSignificant);
    for (const [index, token] of significant.entries()) {
      if (token.kind !== 'word') continue;
      const name = token.text.replace(/^@@?/, '').toUpperCase();
      if (connectionTimeouts.has(name))
        return `${name.toLowerCase()} is not available here: the server would drop the connection`;
      // A COMMIT that begins the next transaction itself would end the episode's unseen.
      if (name === 'COMPLETION_TYPE') return 'completion_type is not available here';
      if (resourceSettings.has(name))
        return `${name.toLowerCase()} is not available here: it would let one statement take the server's memory or disk`;
      // `t.kill` names a column.
      if (significant[index - 1]?.text === '.') continue;
      const next = significant[index + 1]?.kind === 'word' ? significant[index + 1]?.text.toUpperCase() : '';
      const starts = index === 0 || significant[index - 1]?.text === ';';
      if (name === 'KILL') return 'KILL is not available here';
      if (name === 'XA' && starts) return 'XA transactions are not available here';
      // After another statement, a BEGIN would hide that the statements before it committed.
      if (starts && index > 0 && transactionWords.has(name)) return hiddenTransactionControl;
      if (name === 'AUTOCOMMIT' && significant.some((other) => other.text === ';' && other !== significant.at(-1)))
        return hiddenTransactionControl;
      if (name === 'PREPARE' && starts && next !== 'TRANSACTION') {
        const from = significant.findIndex((other, at) => at > index && word(other) === 'FROM');
        const reason = refusedDynamicSql(from > 0 ? significant[from + 1] : undefined);
        if (reason) return reason;
      }
      if (name === 'EXECUTE' && next === 'IMMEDIATE') {
        const reason = refusedDynamicSql(significant[index + 2]);
        if (reason) return reason;
      }
      if ((name === 'SET' && next === 'PASSWORD') || (name === 'ALTER' && next === 'USER')) {
        return "changing the episode's user is not available here";
      }
    }
  }
  return null;
}

/** The significant tokens of a MySQL call as each SQL mode that changes quoting reads it. */
const mysqlReadings = (sql: string): MysqlToken[][] =>
  mysqlLexModes.map((mode) => tokenizeMysql(sql, mode).filter(isSignificant));

/**
 * Whether a MySQL call is a single statement that only reads, under every quoting mode. Such a call
 * writes nothing while the episode has made no routines, triggers or sequences (which commit, so the
 * session knows): its disk need not be measured after it.
 */
export function isSingleMysqlRead(sql: string): boolean {
  return mysqlReadings(sql).every((tokens) => {
    const end = tokens.findIndex((token) => token.text === ';');
    if (end >= 0 && end < tokens.length - 1) return false;
    const first = tokens[0];
    return first !== undefined && (first.text === '(' || readWords.has(word(first)));
  });
}

/**
 * Whether a MySQL call could kill its own connection. `KILL` itself is refused wherever it appears
 * (`refusedMysqlCall`), also in the bodies of routines; only SQL run from text can still reach it: a
 * prepared statement (`PREPARE`, `EXECUTE`, `EXECUTE IMMEDIATE`) or a procedure (`CALL`) that runs one.
 * Functions and triggers may not run SQL from text. A connection killed while any other call runs was
 * killed from outside (an operator, the server).
 */
export function mayEndOwnConnection(sql: string): boolean {
  return mysqlReadings(sql).some((tokens) =>
    tokens.some(
      (token, index) =>
        token.kind === 'word' && /^(PREPARE|EXECUTE|CALL)$/i.test(token.text) && tokens[index - 1]?.text !== '.',
    ),
  );
}

/** `SET autocommit = ...` in any spelling (`@@autocommit`, `SESSION autocommit`, `@@session.autocommit`). */
function setsAutocommit(tokens: readonly MysqlToken[]): boolean {
  return tokens.some((token) => token.kind === 'word' && token.text.replace(/^@@/, '').toUpperCase() === 'AUTOCOMMIT');
}

/** The error text the engine gives for a savepoint that does not exist. */
export function missingSavepointMessage(dialect: SqlDialect, savepoint: string): string {
  return dialect === 'mysql'
    ? `1305 (42000): SAVEPOINT ${savepoint} does not exist`
    : `savepoint "${savepoint}" does not exist`;
}

/**
 * Whether a PostgreSQL statement may leave state in the session that a rollback does not undo:
 * prepared statements, loaded libraries, session advisory locks, sequence values. The session is
 * then discarded when the episode closes; otherwise the rollback alone restores it.
 */
export function touchesSessionState(sql: string): boolean {
  const first = tokenizeMysql(sql).find(isSignificant);
  return ['PREPARE', 'LOAD', 'DISCARD', 'DEALLOCATE'].includes(word(first)) || /advisory|nextval|setval/i.test(sql);
}

/** MySQL statements that change nothing in the session beyond the transaction a rollback ends. */
const sessionNeutralWords = new Set([...readWords, 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'WITH', 'EXPLAIN']);

/**
 * Whether a MySQL call may leave session state behind (variables, temporary tables, locks, prepared
 * statements, several statements at once): the connection is then reset before it serves again.
 */
export function touchesMysqlSession(sql: string): boolean {
  const tokens = tokenizeMysql(sql).filter(isSignificant);
  const first = tokens[0];
  if (!first || (first.text !== '(' && !sessionNeutralWords.has(word(first)))) return true;
  const lastStatementEnd = tokens.findIndex((token, index) => token.text === ';' && index < tokens.length - 1);
  if (lastStatementEnd >= 0) return true;
  return tokens.some(
    (token) =>
      (token.kind === 'word' &&
        (token.text.startsWith('@') || /^(GET_LOCK|RELEASE_LOCK|LAST_INSERT_ID)$/i.test(token.text))) ||
      (token.kind === 'operator' && token.text.startsWith('@')),
  );
}
