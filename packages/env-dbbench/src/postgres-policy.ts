/**
 * What an episode may not run on a PostgreSQL server. Under any run user: raising the memory a
 * statement may take (`work_mem` and its kin), which would let one episode's sort or hash take
 * gigabytes of the server's memory where it would otherwise spill to capped temporary files.
 *
 * Under a run user that is not a superuser, also the following. A superuser run revokes two groups of the system's functions from episodes in the run's database; another
 * user cannot (it does not own them), so there statements that could call them are refused before
 * they run:
 *
 * - `pg_terminate_backend`: an episode ending its own connection looks like a server fault, and
 *   the attempt would be retried as an infrastructure error;
 * - large objects (`lo_*`, `loread`, `lowrite`): they live outside the episode's tables, where its
 *   disk limit does not see them.
 *
 * Their names are refused as words and quoted identifiers, and as calls inside string literals. So
 * that no name can be assembled at run time, so is what runs SQL from text: `DO` blocks, creating
 * functions and procedures (whose bodies are text), and the functions that run a query given as
 * text (`query_to_xml` and its kin, `ts_stat`, `ts_rewrite`); `U&` names and strings, which spell
 * characters by code, are refused too. The statements DBBench's tasks need are none of these.
 */
import { type PostgresToken, screenEitherReading } from './postgres-lexer.js';

const refusedFunctions = /^(?:pg_terminate_backend|lo_\w+|loread|lowrite|query_to_xml\w*|ts_stat|ts_rewrite)$/i;
const refusedCall = /\b(pg_terminate_backend|lo_\w+|loread|lowrite)\s*\(/i;
/** What a statement may not create: code, whose text could call anything. */
const refusedObjects = new Set(['FUNCTION', 'PROCEDURE']);

const why = 'the run connects to PostgreSQL as a user that is not a superuser, which cannot revoke it from episodes';

const upper = (token: PostgresToken | undefined): string => (token?.kind === 'word' ? token.text.toUpperCase() : '');

function screenTokens(tokens: readonly PostgresToken[]): string | null {
  if (tokens.some((token) => token.unicodeEscapes)) return `U& strings and names are refused: ${why}`;
  for (const [index, token] of tokens.entries()) {
    if ((token.kind === 'word' || token.kind === 'quoted-identifier') && refusedFunctions.test(token.value))
      return `${token.value} is refused: ${why}`;
    const called = token.kind === 'string' ? refusedCall.exec(token.value) : null;
    if (called) return `${called[1]} is refused, in a string too: ${why}`;
    // A statement's first word: at the start, or after a `;` (parentheses do not start statements here).
    const starts = index === 0 || tokens[index - 1]?.text === ';';
    if (!starts) continue;
    const first = upper(token);
    if (first === 'DO') return `DO is refused: ${why}`;
    if (first === 'CREATE') {
      let next = index + 1;
      while (['OR', 'REPLACE'].includes(upper(tokens[next]))) next += 1;
      const object = upper(tokens[next]);
      if (refusedObjects.has(object)) return `CREATE ${object} is refused: ${why}`;
    }
  }
  return null;
}

const memorySettings =
  /\b(work_mem|hash_mem_multiplier|maintenance_work_mem|temp_buffers|logical_decoding_work_mem)\b/i;

/**
 * The observation for a statement that names a memory setting (`SET work_mem`, `set_config('work_mem',
 * ...)`, or in the text of a `DO` block), or null. A name assembled at run time still reaches it.
 */
export function screenMemorySettings(sql: string): string | null {
  return screenEitherReading(sql, (tokens) => {
    for (const token of tokens) {
      const named = token.kind === 'symbol' ? null : memorySettings.exec(token.value);
      if (named) return `${named[1]} is not available here: it would let one statement take the server's memory`;
    }
    return null;
  });
}

/** The observation for a statement that could call a function this run could not revoke, or null. */
export function screenUnrevokedCalls(sql: string): string | null {
  return screenEitherReading(sql, screenTokens);
}
