/**
 * Translates the MySQL SQL of AgentBench DBBench (gold answers and agent queries) to PostgreSQL, so that
 * it behaves on PostgreSQL / PGlite as it does on AgentBench's MySQL, where every column is TEXT.
 *
 * The translation is a set of general, documented token rules (docs/sql-translation.md), not a parser:
 * whatever it does not recognise passes through unchanged, and PostgreSQL reports it as an error.
 */
import {
  isKeywordByPosition,
  isMysqlReservedWord,
  isSignificant,
  isTablePosition,
  type MysqlToken,
  mysqlNumericLiteralText,
  quotePostgresIdentifier,
  quotePostgresString,
  tokenizeMysql,
} from './mysql-lexer.js';
import type { MysqlTableSchema, MysqlTranslation, TranslationOptions, TranslationRule } from './mysql-translation.js';

export type { MysqlToken, MysqlTokenKind } from './mysql-lexer.js';
export {
  mysqlNumericLiteralText,
  postgresHelperFunctionsSql,
  quoteMysqlIdentifier,
  quotePostgresIdentifier,
  tokenizeMysql,
  unquoteIdentifiers,
} from './mysql-lexer.js';

export {
  type MysqlTableSchema,
  type MysqlTranslation,
  type TranslationOptions,
  type TranslationRule,
  translationRules,
} from './mysql-translation.js';

/**
 * Translates one MySQL statement (or several separated by `;`) to PostgreSQL for a table whose columns
 * are all TEXT. The emitted comparisons call `mysql_ci`, `mysql_fold` and `mysql_num`: install
 * `postgresHelperFunctionsSql` once per database or schema before running the result.
 */
export function translateMysqlToPostgres(
  sql: string,
  schema: MysqlTableSchema,
  options: TranslationOptions = {},
): MysqlTranslation {
  return new Translator(sql, schema, options).run();
}

// `absorbed`: a string literal joined into the literal before it.
type Role = 'column' | 'table' | 'name' | 'string' | 'number' | 'absorbed' | 'other';

interface Item {
  readonly token: MysqlToken;
  readonly tokenIndex: number;
  /** Upper-case text of a bare word, '' for anything else: compared against keywords. */
  readonly upper: string;
  role: Role;
  /** Decoded value of a string literal (after adjacent literals were joined). */
  value: string;
}

/** A literal operand: items `start` to `end` (a sign and a number are two items). */
type Literal = { readonly kind: 'string' | 'number'; readonly start: number; readonly end: number };

const comparisonOperators = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
// Operators and words that bind tighter than a comparison: `col + 1 = 2` must not become `col + f(1) = 2`.
const tighterOperators = new Set(['+', '-', '*', '/', '%', '^', '&', '|', '<<', '>>', '~', '!', '.', '->', '->>']);
const tighterWords = new Set(['BINARY', 'COLLATE', 'DIV', 'MOD', 'INTERVAL']);
const assignmentClauseEnd = new Set(['WHERE', 'ORDER', 'LIMIT', 'ON', 'RETURNING']);

const toItem = (token: MysqlToken, tokenIndex: number): Item => ({
  token,
  tokenIndex,
  upper: token.kind === 'word' ? token.text.toUpperCase() : '',
  role: 'other',
  value: '',
});

class Translator {
  private readonly tokens: MysqlToken[];
  private readonly output: string[];
  private items: Item[];
  /** The tokens of `items` before adjacent strings are joined, for the position rules of the lexer. */
  private readonly significant: MysqlToken[];
  private readonly notes = new Set<TranslationRule>();
  private readonly disabled: ReadonlySet<TranslationRule>;

  constructor(
    sql: string,
    private readonly schema: MysqlTableSchema,
    private readonly options: TranslationOptions,
  ) {
    this.tokens = tokenizeMysql(sql);
    this.output = this.tokens.map((token) => token.text);
    this.disabled = new Set(options.disabledRules ?? []);
    this.items = this.tokens.flatMap((token, tokenIndex) => (isSignificant(token) ? [toItem(token, tokenIndex)] : []));
    this.significant = this.items.map((item) => item.token);
  }

  run(): MysqlTranslation {
    this.translateComments();
    this.translateTokens();
    this.translateClauses();
    this.dropTrailingSemicolons();
    return { sql: this.output.join(''), notes: [...this.notes] };
  }

  /** Applies a rule unless it is disabled, and records that it fired. */
  private apply(rule: TranslationRule, change: () => void): boolean {
    if (this.disabled.has(rule)) return false;
    change();
    this.notes.add(rule);
    return true;
  }

  private text(index: number): string {
    return this.items[index]?.token.text ?? '';
  }

  // `# comment` is MySQL only; PostgreSQL knows `-- comment`.
  private translateComments(): void {
    this.tokens.forEach((token, index) => {
      if (token.kind === 'comment' && token.text.startsWith('#')) {
        this.apply('hash-comment', () => {
          this.output[index] = `--${token.text.slice(1)}`;
        });
      }
    });
  }

  /** Identifiers, string literals and MySQL-only operators, one token at a time. */
  private translateTokens(): void {
    this.items.forEach((item, index) => {
      const { token } = item;
      if (token.kind === 'quoted-identifier' && !token.unterminated) {
        this.translateIdentifier(index, token.value, 'backtick-identifier');
      } else if (token.kind === 'word' && !isMysqlReservedWord(token.text)) {
        if (!isKeywordByPosition(this.significant, index)) {
          this.translateIdentifier(index, token.text, 'bare-identifier');
        }
      } else if (token.kind === 'string' && !token.unterminated) {
        this.translateString(index);
      } else if (token.kind === 'number') {
        item.role = 'number';
      } else if (token.text === '||' || token.text === '&&') {
        // With MySQL's default sql_mode these are logical OR / AND; in PostgreSQL `||` concatenates.
        const space = (neighbour: number) => (/^\s/.test(this.tokens[neighbour]?.text ?? ' ') ? '' : ' ');
        const keyword = token.text === '||' ? 'OR' : 'AND';
        this.apply('logical-operators', () => {
          this.output[item.tokenIndex] = `${space(item.tokenIndex - 1)}${keyword}${space(item.tokenIndex + 1)}`;
        });
      }
    });
    this.items = this.items.filter((item) => item.role !== 'absorbed');
  }

  private translateIdentifier(index: number, name: string, rule: TranslationRule): void {
    const item = this.items[index];
    if (!item) return;
    const resolved = this.resolveName(name, isTablePosition(this.significant, index));
    // A bare word that names nothing in the schema (an alias, a function) keeps PostgreSQL's folding.
    if (rule === 'bare-identifier' && !resolved) return;
    item.role = resolved?.role ?? 'name';
    this.apply(rule, () => {
      this.output[item.tokenIndex] = quotePostgresIdentifier(resolved?.name ?? name);
    });
  }

  /** Finds the canonical spelling of a column or table name (MySQL: column names ignore case). */
  private resolveName(name: string, preferTable: boolean): { name: string; role: Role } | undefined {
    const lower = name.toLowerCase();
    const columns = this.schema.columns;
    const column = columns.find((candidate) => candidate === name) ?? columns.find((c) => c.toLowerCase() === lower);
    const { table } = this.schema;
    // Case-sensitive table names keep a name in the wrong case as written, so PostgreSQL fails as MySQL does.
    const tableName = this.options.caseSensitiveTableNames ? name : table;
    const asTable = table.toLowerCase() === lower ? { name: tableName, role: 'table' as const } : undefined;
    const asColumn = column === undefined ? undefined : { name: column, role: 'column' as const };
    return preferTable ? (asTable ?? asColumn) : (asColumn ?? asTable);
  }

  private translateString(index: number): void {
    const item = this.items[index];
    if (!item) return;
    const { token } = item;
    const quote = token.text.charAt(0);
    const plain = token.text.slice(1, -1).replaceAll(quote + quote, quote);
    let value = token.value;
    if (value !== plain && !this.apply('string-escapes', () => {})) value = plain;
    // MySQL joins adjacent literals ('a' 'b' = 'ab'); PostgreSQL only does across a newline.
    let previousIndex = index - 1;
    while (this.items[previousIndex]?.role === 'absorbed') previousIndex -= 1;
    const previous = this.items[previousIndex];
    const join = () => {
      if (!previous) return;
      previous.value += value;
      item.role = 'absorbed';
      this.output[previous.tokenIndex] = quotePostgresString(previous.value);
      this.output.fill('', previous.tokenIndex + 1, item.tokenIndex + 1);
    };
    if (previous?.role === 'string' && this.apply('adjacent-strings', join)) return;
    if (quote === '"' && !this.apply('double-quoted-string', () => {})) return;
    item.role = 'string';
    item.value = value;
    this.output[item.tokenIndex] = quotePostgresString(value);
  }

  /** Comparisons, assignments and VALUES rows, which need to know the clause a token is in. */
  private translateClauses(): void {
    let depth = 0;
    let statement = '';
    let assignmentDepth: number | undefined;
    let valuesDepth: number | undefined;
    for (let index = 0; index < this.items.length; index += 1) {
      const item = this.items[index];
      if (!item) continue;
      const text = item.token.text;
      if (text === ';') {
        [statement, assignmentDepth, valuesDepth] = ['', undefined, undefined];
        continue;
      }
      statement ||= item.upper;
      if (text === '(') depth += 1;
      if (text === ')') depth -= 1;
      if (depth === assignmentDepth && assignmentClauseEnd.has(item.upper)) assignmentDepth = undefined;
      const writes = statement === 'UPDATE' || statement === 'INSERT' || statement === 'REPLACE';
      if (writes && (item.upper === 'SET' || (item.upper === 'UPDATE' && this.items[index - 1]?.upper === 'KEY'))) {
        [assignmentDepth, valuesDepth] = [depth, undefined];
      }
      if (writes && depth === 0 && assignmentDepth === undefined && /^VALUES?$/.test(item.upper)) {
        valuesDepth = 1;
      }
      if (depth === valuesDepth && (text === '(' || text === ',')) {
        // A numeric value of a VALUES row goes into a TEXT column.
        const literal = this.literalAt(index + 1);
        if (literal?.kind === 'number' && /^[,)]$/.test(this.text(literal.end + 1))) {
          this.storeNumberAsText(literal);
          index = literal.end;
        }
        continue;
      }
      if (item.role !== 'column' || this.text(index + 1) === '.') {
        if (item.role === 'string' || item.role === 'number' || /^[+-]$/.test(text)) {
          index = this.translateLiteralFirstComparison(index);
        }
        continue;
      }
      const start = this.text(index - 1) === '.' && index >= 2 ? index - 2 : index;
      const before = this.items[start - 1];
      const isTarget = before?.upper === 'SET' || before?.upper === 'UPDATE' || before?.token.text === ',';
      if (depth === assignmentDepth && isTarget && /^:?=$/.test(this.text(index + 1))) {
        const literal = this.literalAt(index + 2);
        if (literal?.kind === 'number' && this.endsOperand(literal.end)) this.storeNumberAsText(literal);
        continue;
      }
      index = this.translateColumnFirstComparison(start, index);
    }
  }

  /** `col op literal`, `col [NOT] LIKE literal`, `col [NOT] IN (literals)`, `col [NOT] BETWEEN a AND b`. */
  private translateColumnFirstComparison(start: number, end: number): number {
    if (!this.startsOperand(start)) return end;
    let operator = end + 1;
    const negated = this.items[operator]?.upper === 'NOT';
    if (negated) operator += 1;
    const operatorItem = this.items[operator];
    if (!operatorItem) return end;
    if (operatorItem.upper === 'IN' && this.text(operator + 1) === '(') {
      const literals: Literal[] = [];
      let next = operator + 2;
      for (let literal = this.literalAt(next); literal; literal = this.literalAt(next)) {
        literals.push(literal);
        next = literal.end + 2;
        if (this.text(literal.end + 1) !== ',') break;
      }
      const kinds = new Set(literals.map((literal) => literal.kind));
      const closes = this.text((literals.at(-1)?.end ?? operator) + 1) === ')';
      // A list mixing strings and numbers compares by other MySQL rules: left unchanged.
      if (!closes || kinds.size !== 1) return end;
      return this.wrapComparison(start, end, literals, 'mysql_ci');
    }
    if (operatorItem.upper === 'BETWEEN') {
      const low = this.literalAt(operator + 1);
      const high = low && this.items[low.end + 1]?.upper === 'AND' ? this.literalAt(low.end + 2) : undefined;
      if (!low || !high || low.kind !== high.kind || !this.endsOperand(high.end)) return end;
      return this.wrapComparison(start, end, [low, high], 'mysql_ci');
    }
    const literal = this.literalAt(operator + 1);
    if (!literal || !(this.endsOperand(literal.end) || this.items[literal.end + 1]?.upper === 'ESCAPE')) return end;
    if (operatorItem.upper === 'LIKE') {
      if (literal.kind === 'number') this.storeNumberAsText(literal);
      return this.wrapComparison(start, end, [{ ...literal, kind: 'string' }], 'mysql_fold');
    }
    if (negated || !comparisonOperators.has(operatorItem.token.text)) return end;
    return this.wrapComparison(start, end, [literal], 'mysql_ci');
  }

  /** `literal op col`, the mirror image of `col op literal`. */
  private translateLiteralFirstComparison(index: number): number {
    const literal = this.literalAt(index);
    if (!literal || !this.startsOperand(literal.start)) return index;
    const operator = literal.end + 1;
    if (!comparisonOperators.has(this.text(operator))) return literal.end;
    const qualified = this.text(operator + 2) === '.';
    const columnEnd = qualified ? operator + 3 : operator + 1;
    if (this.items[columnEnd]?.role !== 'column' || !this.endsOperand(columnEnd)) return literal.end;
    this.wrapComparison(operator + 1, columnEnd, [literal], 'mysql_ci');
    return columnEnd;
  }

  /**
   * Gives the comparison MySQL semantics: strings compare case- and accent-insensitively (`mysql_ci`,
   * or `mysql_fold` for LIKE, where trailing spaces count); numbers compare with the column's numeric
   * prefix (`mysql_num`). Returns the index of the last item of the comparison.
   */
  private wrapComparison(start: number, end: number, literals: Literal[], textFunction: string): number {
    const last = literals.at(-1)?.end ?? end;
    const done = Math.max(last, end);
    if (literals[0]?.kind === 'number') {
      this.apply('numeric-comparison', () => this.wrap(start, end, 'mysql_num'));
      return done;
    }
    this.apply('case-insensitive-comparison', () => {
      this.wrap(start, end, textFunction);
      for (const literal of literals) this.wrap(literal.start, literal.end, textFunction);
    });
    return done;
  }

  private wrap(start: number, end: number, functionName: string): void {
    const first = this.items[start];
    const last = this.items[end];
    if (!first || !last) return;
    this.output[first.tokenIndex] = `${functionName}(${this.output[first.tokenIndex]}`;
    this.output[last.tokenIndex] = `${this.output[last.tokenIndex]})`;
  }

  /** A string literal, or a number with an optional unary sign, starting at `index`. */
  private literalAt(index: number): Literal | undefined {
    const item = this.items[index];
    if (item?.role === 'string' || item?.role === 'number') return { kind: item.role, start: index, end: index };
    const signed = (item?.token.text === '-' || item?.token.text === '+') && this.items[index + 1]?.role === 'number';
    return signed ? { kind: 'number', start: index, end: index + 1 } : undefined;
  }

  /** True if nothing before `index` binds tighter than a comparison (`x + col = 1` is `(x + col) = 1`). */
  private startsOperand(index: number): boolean {
    const before = this.items[index - 1];
    if (!before) return true;
    if (before.token.kind === 'word') return !tighterWords.has(before.upper) && before.role === 'other';
    if (before.token.kind === 'operator') return before.token.text === '||' || before.token.text === '&&';
    return before.token.text === '(' || before.token.text === ',' || before.token.text === ';';
  }

  /** True if nothing after `index` binds tighter than a comparison (`col = 1 + x` is `col = (1 + x)`). */
  private endsOperand(index: number): boolean {
    const after = this.items[index + 1];
    if (!after) return true;
    if (after.token.kind === 'word') return !tighterWords.has(after.upper);
    return !tighterOperators.has(after.token.text) && after.token.text !== '(';
  }

  /** Rewrites a numeric literal that goes into a TEXT column as the string MySQL would store. */
  private storeNumberAsText(literal: Literal): void {
    const sign = literal.start === literal.end ? '' : this.text(literal.start);
    const number = this.items[literal.end];
    const text = number && mysqlNumericLiteralText(number.token.text, sign);
    if (!number || text === undefined) return;
    this.apply('numeric-literal-text', () => {
      this.output.fill('', this.items[literal.start]?.tokenIndex ?? number.tokenIndex, number.tokenIndex);
      this.output[number.tokenIndex] = quotePostgresString(text);
      number.role = 'string';
    });
  }

  // Harmless to PostgreSQL itself, but the translation is meant to be one statement that callers can
  // wrap or extend (a transaction, `RETURNING`, a sub-query); trailing whitespace and comments go too.
  private dropTrailingSemicolons(): void {
    let lastKept = this.items.length - 1;
    while (this.text(lastKept) === ';') lastKept -= 1;
    if (lastKept === this.items.length - 1) return;
    const keptTokens = (this.items[lastKept]?.tokenIndex ?? -1) + 1;
    this.apply('trailing-semicolon', () => this.output.splice(keptTokens));
  }
}
