/**
 * AgentBench DBBench scoring, reproduced from the Python it is defined by:
 * - `scoreAnswerV02`: v0.2 (the paper's version), `DBBench.metrics` in src/server/tasks/dbbench/__init__.py.
 * - `scoreAnswerNormalized`: the main branch, `DBResultProcessor.compare_results` in
 *   src/server/tasks/dbbench/result_processor.py.
 * - `scoreWrite`: both versions compare the text of the hash query's result with `answer_md5`.
 * Python's dynamic behaviour (eval, float(), set equality, str.strip) is emulated exactly where it
 * can change a verdict; `detail` says which rule decided.
 */
import { type PythonLiteral, parsePythonLiteral, pythonLiteralRepr, pythonLiteralStr } from './python-literal.js';
import { formatPythonRows } from './python-text.js';

/**
 * An agent's final answer. `text` is the raw text after `Final Answer:` (original text protocol; see
 * `extractFinalAnswerText`). `list` is the argument of a `commit_final_answer(answers)` tool call, taken
 * as an already-evaluated Python list: JSON numbers become Python ints when integral, else floats (JSON
 * has lost the difference between `1` and `1.0`; v0.2 cannot tell them apart since `1 == 1.0`, and the
 * normalized scorer only could in mixed number/text lists, where it compares `str()` forms).
 */
export type FinalAnswer =
  | { kind: 'text'; text: string }
  | { kind: 'list'; values: Array<string | number | boolean | null> };

/** A verdict with the rule that decided it, for logs and reports. */
export interface AnswerScore {
  correct: boolean;
  detail: string;
}

/**
 * The answer text as v0.2 extracts it: `re.search(r"\nFinal Answer:(.*)", response).group(1)`, i.e. the
 * rest of the first line after a `Final Answer:` that starts a line (not the response's first line),
 * leading space included. Returns null when there is no match (AgentBench then scores "").
 */
export function extractFinalAnswerText(response: string): string | null {
  // Python's `.` stops only at \n, unlike JS's, so the rest of the line is spelled out.
  return /\nFinal Answer:([^\n]*)/.exec(response)?.[1] ?? null;
}

/** Characters Python's `str.isspace()` accepts, used by `str.strip()`. */
const PYTHON_WHITESPACE = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYTHON_STRIP = new RegExp(`^${PYTHON_WHITESPACE}+|${PYTHON_WHITESPACE}+$`, 'gu');
const NON_ASCII_WHITESPACE = new RegExp(`(?![\\x00-\\x7f])${PYTHON_WHITESPACE}`, 'gu');
const DECIMAL_DIGIT = /\p{Nd}/u;
const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOAT_TEXT = /^([+-]?)(inf|infinity|nan)$/i;

function pythonStrip(text: string): string {
  return text.replace(PYTHON_STRIP, '');
}

/** Python `s.strip("'\"")`: drops any run of quote characters at either end. */
function stripQuotes(text: string): string {
  return text.replace(/^['"]+|['"]+$/g, '');
}

/** The value of a Unicode decimal digit: Nd digits come in runs of ten starting at zero. */
function digitValue(codePoint: number): number {
  let runStart = codePoint;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(runStart - 1))) runStart -= 1;
  return (codePoint - runStart) % 10;
}

/**
 * Python `float(text)` for a str; undefined where Python raises ValueError. Accepts what CPython does:
 * surrounding whitespace (ASCII, plus non-ASCII Unicode spaces), any Unicode decimal digits, `_`
 * between digits, `1.`, `.5`, exponents, and `inf`/`infinity`/`nan` in any case with a sign.
 */
export function pythonFloatFromString(text: string): number | undefined {
  const ascii = Array.from(text.replace(NON_ASCII_WHITESPACE, ' '), (character) => {
    const codePoint = character.codePointAt(0) ?? 0;
    return codePoint > 0x7f && DECIMAL_DIGIT.test(character) ? String(digitValue(codePoint)) : character;
  }).join('');
  // After that translation CPython strips only ASCII whitespace: \x1c-\x1f stay and make it fail.
  const trimmed = ascii.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
  if (FLOAT_TEXT.test(trimmed)) return Number(trimmed.replaceAll('_', ''));
  const special = SPECIAL_FLOAT_TEXT.exec(trimmed);
  if (!special) return undefined;
  const magnitude = special[2]?.toLowerCase() === 'nan' ? Number.NaN : Number.POSITIVE_INFINITY;
  return special[1] === '-' ? -magnitude : magnitude;
}

type FloatConversion = { value: number } | { error: 'ValueError' | 'TypeError' | 'OverflowError' };

/** Python `float(x)` for any literal. */
function toPythonFloat(literal: PythonLiteral): FloatConversion {
  if (literal.type === 'float') return { value: literal.value };
  if (literal.type === 'bool') return { value: literal.value ? 1 : 0 };
  if (literal.type === 'int') {
    const value = Number(literal.value); // rounds half to even, like Python's int -> float
    return Number.isFinite(value) ? { value } : { error: 'OverflowError' };
  }
  if (literal.type !== 'str') return { error: 'TypeError' };
  const value = pythonFloatFromString(literal.value);
  return value === undefined ? { error: 'ValueError' } : { value };
}

function numericValue(literal: PythonLiteral): bigint | number | undefined {
  if (literal.type === 'int' || literal.type === 'float') return literal.value;
  if (literal.type === 'bool') return literal.value ? 1n : 0n;
  return undefined;
}

/** Python `==`: 1 == 1.0 == True (int vs float exactly), a number never equals a str, list != tuple. */
function pythonEquals(left: PythonLiteral, right: PythonLiteral): boolean {
  const leftNumber = numericValue(left);
  const rightNumber = numericValue(right);
  if (leftNumber !== undefined && rightNumber !== undefined) {
    if (typeof leftNumber === typeof rightNumber) return leftNumber === rightNumber;
    const float = Number(typeof leftNumber === 'number' ? leftNumber : rightNumber);
    const integer = typeof leftNumber === 'bigint' ? leftNumber : rightNumber;
    return Number.isInteger(float) && BigInt(float) === integer;
  }
  if (left.type === 'str' && right.type === 'str') return left.value === right.value;
  if (left.type === 'none' && right.type === 'none') return true;
  if ((left.type === 'list' && right.type === 'list') || (left.type === 'tuple' && right.type === 'tuple')) {
    const rightItems = right.items;
    return left.items.length === rightItems.length && left.items.every((item, i) => equalsAt(rightItems, i, item));
  }
  return false;
}

function equalsAt(items: PythonLiteral[], index: number, wanted: PythonLiteral): boolean {
  const item = items[index];
  return item !== undefined && pythonEquals(item, wanted);
}

/** Python `hash()` succeeds: lists are unhashable, tuples only when all their items are hashable. */
function isHashable(literal: PythonLiteral): boolean {
  if (literal.type === 'list') return false;
  return literal.type !== 'tuple' || literal.items.every(isHashable);
}

/** `set(left) == set(right)` for hashable items. */
function setsEqual(left: PythonLiteral[], right: PythonLiteral[]): boolean {
  const contains = (items: PythonLiteral[], wanted: PythonLiteral) => items.some((item) => pythonEquals(item, wanted));
  return left.every((item) => contains(right, item)) && right.every((item) => contains(left, item));
}

const str = (value: string): PythonLiteral => ({ type: 'str', value });

function fromJson(value: string | number | boolean | null): PythonLiteral {
  if (value === null) return { type: 'none' };
  if (typeof value === 'string') return str(value);
  if (typeof value === 'boolean') return { type: 'bool', value };
  return Number.isInteger(value) ? { type: 'int', value: BigInt(value) } : { type: 'float', value };
}

function parseOrUndefined(text: string): PythonLiteral | undefined {
  try {
    return parsePythonLiteral(text);
  } catch {
    // AgentBench wraps eval in a bare `except:`: any failure means "not a literal".
    return undefined;
  }
}

/**
 * v0.2's `ans = list(eval(ans))`, falling back to `[ans]` on any exception: a list or tuple gives its
 * items, a str its characters, and a number, bool or None (not iterable) the original text.
 */
export function evaluateAnswerV02(text: string): PythonLiteral[] {
  const value = parseOrUndefined(text);
  if (value?.type === 'list' || value?.type === 'tuple') return value.items;
  if (value?.type === 'str') return Array.from(value.value, str);
  return [str(text)];
}

const verdict = (correct: boolean, detail: string): AnswerScore => ({ correct, detail });

/**
 * AgentBench v0.2 question scoring against `label`: one answer value and one label compare as
 * `float(a) == float(b)`, or with `==` when either float() raises ValueError/TypeError; otherwise
 * `set(answer) == set(label)` with Python equality, an unhashable item counting as wrong.
 */
export function scoreAnswerV02(answer: FinalAnswer, label: string[]): AnswerScore {
  const items = answer.kind === 'list' ? answer.values.map(fromJson) : evaluateAnswerV02(answer.text);
  const [onlyItem] = items;
  const [onlyLabel] = label;
  if (items.length === 1 && label.length === 1 && onlyItem !== undefined && onlyLabel !== undefined) {
    const shown = `${pythonLiteralRepr(onlyItem)} vs ${pythonLiteralRepr(str(onlyLabel))}`;
    const answerFloat = toPythonFloat(onlyItem);
    const labelFloat = pythonFloatFromString(onlyLabel);
    if ('error' in answerFloat && answerFloat.error === 'OverflowError') {
      // Python raises OverflowError here, which AgentBench does not catch: it never counts as correct.
      return verdict(false, `float() overflows: ${shown}`);
    }
    if ('value' in answerFloat && labelFloat !== undefined) {
      return verdict(answerFloat.value === labelFloat, `compared as floats: ${shown}`);
    }
    return verdict(pythonEquals(onlyItem, str(onlyLabel)), `compared with ==: ${shown}`);
  }
  const shown = `${pythonLiteralRepr({ type: 'list', items })} vs ${JSON.stringify(label)}`;
  if (!items.every(isHashable)) return verdict(false, `unhashable answer item, set() raises: ${shown}`);
  return verdict(setsEqual(items, label.map(str)), `compared as sets: ${shown}`);
}

const SPECIAL_VALUES = new Set(['none', 'null', 'undefined', 'nan', 'inf', 'infinity', '-inf', '-infinity', '']);

/** Main branch `_normalize_special_values`. */
function normalizeValue(value: string): string {
  let text = pythonStrip(value);
  // A trailing % returns at once: no comma removal or special-value mapping for percentages.
  if (text.endsWith('%')) return pythonStrip(text.slice(0, -1));
  // Commas go from every value that neither starts with [ nor ends with ], numbers or not.
  if (text.includes(',') && !text.startsWith('[') && !text.endsWith(']')) text = text.replaceAll(',', '');
  return SPECIAL_VALUES.has(text.toLowerCase()) ? '0' : text;
}

/** One list item as `_clean_answer` renders it: a one-item tuple stands for its item. */
function cleanItem(item: PythonLiteral): string {
  const unwrapped = item.type === 'tuple' && item.items.length === 1 ? (item.items[0] ?? item) : item;
  return normalizeValue(stripQuotes(pythonStrip(pythonLiteralStr(unwrapped))));
}

/** Main branch `_clean_mysql_result`: answers that look like `str(cursor.fetchall())`. */
function cleanMysqlResult(text: string): string[] | undefined {
  if (!(text.startsWith('[') && text.endsWith(']'))) return undefined;
  const parsed = parseOrUndefined(text);
  if (parsed?.type === 'list' && parsed.items.every((item) => item.type === 'tuple')) {
    // Tuples of other lengths are skipped, not kept.
    const singles = parsed.items.flatMap((item) =>
      item.type === 'tuple' && item.items.length === 1 ? item.items : [],
    );
    return singles.map((item) => stripQuotes(pythonStrip(pythonLiteralStr(item))));
  }
  const inner = text.replace(/^[[\]]+|[[\]]+$/g, '');
  if (inner.split('(').length === 2 && inner.startsWith('(') && inner.endsWith(',)')) {
    return [stripQuotes(pythonStrip(inner.slice(1, -2)))];
  }
  return undefined;
}

/** The fallback split of `_clean_answer` when a bracketed answer does not evaluate. */
function splitBracketedText(text: string): string[] {
  const items: string[] = [];
  let current = '';
  let inQuotes = false;
  const flush = () => {
    // Python tests `if current:`, so an item of only spaces survives (and later becomes "0").
    if (current !== '') items.push(normalizeValue(stripQuotes(pythonStrip(current))));
    current = '';
  };
  for (const character of text.slice(1, -1)) {
    if (character === '"' || character === "'") inQuotes = !inQuotes;
    else if (character === ',' && !inQuotes) flush();
    else current += character;
  }
  flush();
  return items;
}

/** Main branch `_clean_answer` for a str answer; undefined where Python returns None. */
function cleanTextAnswer(text: string): string[] | undefined {
  const fromMysql = cleanMysqlResult(text);
  if (fromMysql) return fromMysql.map(normalizeValue);
  const stripped = pythonStrip(text);
  if (!(stripped.startsWith('[') && stripped.endsWith(']'))) return [normalizeValue(stripQuotes(stripped))];
  const parsed = parseOrUndefined(stripped);
  if (parsed === undefined) return splitBracketedText(stripped);
  // e.g. `[1], [2]` evaluates to a tuple: `_clean_answer` then falls through and returns None.
  return parsed.type === 'list' ? parsed.items.map(cleanItem) : undefined;
}

function isFloatText(value: string): boolean {
  return pythonFloatFromString(value) !== undefined;
}

function floatsClose(left: string, right: string): boolean {
  return Math.abs((pythonFloatFromString(left) ?? Number.NaN) - (pythonFloatFromString(right) ?? Number.NaN)) <= 1e-2;
}

/**
 * AgentBench main-branch question scoring: both sides normalised (quotes and spaces stripped, trailing
 * `%` dropped, commas removed, none/null/undefined/nan/inf/"" mapped to "0"); one value each compares
 * as floats within 1e-2 when both parse, else as strings; all-numeric lists are matched one-to-one
 * within 1e-2 (equal lengths, any order); anything else compares as sets of normalised strings.
 */
export function scoreAnswerNormalized(answer: FinalAnswer, label: string[]): AnswerScore {
  const answerValues =
    answer.kind === 'text' ? cleanTextAnswer(answer.text) : answer.values.map((value) => cleanItem(fromJson(value)));
  const labelValues = label.map((value) => cleanItem(str(value)));
  if (answerValues === undefined) return verdict(false, 'answer evaluates to a non-list; Python compares None');
  const shown = `${JSON.stringify(answerValues)} vs ${JSON.stringify(labelValues)}`;
  const [onlyAnswer] = answerValues;
  const [onlyLabel] = labelValues;
  if (answerValues.length === 1 && labelValues.length === 1 && onlyAnswer !== undefined && onlyLabel !== undefined) {
    if (onlyAnswer === '0' && onlyLabel === '0') return verdict(true, `both special values: ${shown}`);
    if (isFloatText(onlyAnswer) && isFloatText(onlyLabel)) {
      return verdict(floatsClose(onlyAnswer, onlyLabel), `compared as floats within 1e-2: ${shown}`);
    }
    return verdict(onlyAnswer === onlyLabel, `compared as strings: ${shown}`);
  }
  if (answerValues.every(isFloatText) && labelValues.every(isFloatText)) {
    if (answerValues.length !== labelValues.length)
      return verdict(false, `numeric lists of different lengths: ${shown}`);
    const matched = labelValues.map(() => false);
    for (const value of answerValues) {
      // Greedy, as AgentBench: each answer takes the first unmatched label within tolerance.
      const index = labelValues.findIndex((labelValue, i) => !matched[i] && floatsClose(value, labelValue));
      if (index === -1) return verdict(false, `no label matches ${value} within 1e-2: ${shown}`);
      matched[index] = true;
    }
    return verdict(true, `numeric lists matched one-to-one within 1e-2: ${shown}`);
  }
  const labelSet = new Set(labelValues);
  const answerSet = new Set(answerValues);
  const equal = answerSet.size === labelSet.size && [...answerSet].every((value) => labelSet.has(value));
  return verdict(equal, `compared as sets of strings: ${shown}`);
}

/** The text AgentBench compares with `answer_md5`: `str(cursor.fetchall())` of the hash query. */
export function formatHashResult(hash: string | null): string {
  return formatPythonRows([[hash]]);
}

/** Write-task scoring: the modified table's hash, as its result text, must equal `answer_md5` exactly. */
export function scoreWrite(hash: string | null, answerMd5: string): AnswerScore {
  const actual = formatHashResult(hash);
  return verdict(actual === answerMd5, `${actual} ${actual === answerMd5 ? '==' : '!='} ${answerMd5}`);
}
