import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  formatPythonRows,
  formatPythonValue,
  PyDate,
  PyDecimal,
  PyFloat,
  pythonFloatRepr,
  pythonStringRepr,
} from './python-text.js';

// Every expected text below was produced by CPython 3.11 (`repr(x)`, `str(rows)`).
const floatCases: Array<[value: number, pythonRepr: string]> = [
  [1.5, '1.5'],
  [3.0, '3.0'],
  [1e-5, '1e-05'],
  [0.0001, '0.0001'],
  [1e16, '1e+16'],
  [1000000000000000.0, '1000000000000000.0'],
  [1234567890123456.0, '1234567890123456.0'],
  [123456789012345.6, '123456789012345.6'],
  [-0, '-0.0'],
  [0.30000000000000004, '0.30000000000000004'],
  [1e22, '1e+22'],
  [5e-324, '5e-324'],
  [1.7976931348623157e308, '1.7976931348623157e+308'],
  [Number.POSITIVE_INFINITY, 'inf'],
  [Number.NEGATIVE_INFINITY, '-inf'],
  [Number.NaN, 'nan'],
  [2.5e-7, '2.5e-07'],
  [100.0, '100.0'],
  [-1234.5678, '-1234.5678'],
  [9007199254740992.0, '9007199254740992.0'],
];
const stringCases: Array<[text: string, pythonRepr: string]> = [
  ['plain', "'plain'"],
  ["it's", '"it\'s"'],
  ['say "hi"', '\'say "hi"\''],
  ['it\'s "x"', "'it\\'s \"x\"'"],
  ['back\\slash', "'back\\\\slash'"],
  ['a\nb\rc\td', "'a\\nb\\rc\\td'"],
  ['\u0000\u001f\u007f', "'\\x00\\x1f\\x7f'"],
  ['\u0080\u00a0\u00ad\u00ff', "'\\x80\\xa0\\xad\u00ff'"],
  ['\u00e9\u2013\ud83d\ude00', "'\u00e9\u2013\ud83d\ude00'"],
  ['\u2028\u2029\u200b\ufeff', "'\\u2028\\u2029\\u200b\\ufeff'"],
  ['\ue000\udb80\udc00', "'\\ue000\\U000f0000'"],
  ['\u3000 ', "'\\u3000 '"],
  ['\ud800', "'\\ud800'"],
];
const devRowsMd5 = '37e483ea6c660dd22ffea87716d88dc8';
const devFirstRows: Record<number, string> = {
  1: "[('S\\\\n1.6', '160', 'Silvestre Semilia', 'Silvestre Semilia\\\\n Giuseppe Crescenti', 'Alfa Romeo Giulia Spider', 'Alfa Romeo 1.6 I4', '6')]",
  2: "[('1.', '\"Don\\'t Cry for Me Argentina\"', 'Julie Covington', '1', '7')]",
  5: "[('1', 'Back River Farm', 'June 22, 1984\\\\n(#84003236)', 'Bay View Rd.\\\\n43\u00b008\u203221\u2033N 70\u00b051\u203216\u2033W\\ufeff / \\ufeff43.139167\u00b0N 70.854444\u00b0W', 'Dover', '')]",
  24: "[('1', 'September 8, 1986', 'New York Giants', 'W 31\u201328', 'Texas Stadium', '[1]', '59,804')]",
};

/** Dev rows as AgentBench's MySQL hands them back: every cell read from a TEXT column, so a str. */
const devRows: string[][][] = readFileSync(new URL('../data/dev.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => (JSON.parse(line) as { table: { table_info: { rows: unknown[][] } } }).table.table_info.rows)
  .map((rows) => rows.map((row) => row.map(String)));

describe('formatPythonRows', () => {
  it('prints lists of tuples as str(cursor.fetchall())', () => {
    expect(formatPythonRows([])).toBe('[]');
    expect(formatPythonRows([['a', 'b'], ['c']])).toBe("[('a', 'b'), ('c',)]");
    expect(formatPythonRows([[]])).toBe('[()]');
    expect(formatPythonRows([[null, 3, -7, 12345678901234567890n, true, false]])).toBe(
      '[(None, 3, -7, 12345678901234567890, 1, 0)]',
    );
    expect(formatPythonRows([['03b2eddd4fe471e0f29fc9e907fd5a5d']])).toBe("[('03b2eddd4fe471e0f29fc9e907fd5a5d',)]");
  });

  it('prints every dev table exactly as Python does', () => {
    const text = devRows.map((rows) => formatPythonRows(rows)).join('\n');
    expect(createHash('md5').update(text, 'utf8').digest('hex')).toBe(devRowsMd5);
    for (const [index, expected] of Object.entries(devFirstRows)) {
      expect(formatPythonRows(devRows[Number(index)]?.slice(0, 1) ?? [])).toBe(expected);
    }
  });

  it('prints engine types the way mysql-connector values print', () => {
    expect(formatPythonRows([[new PyDecimal('2.50'), new PyFloat(3), 1.5, new PyFloat(1e16)]])).toBe(
      "[(Decimal('2.50'), 3.0, 1.5, 1e+16)]",
    );
    expect(formatPythonValue(new PyDate('2020-01-02'))).toBe('datetime.date(2020, 1, 2)');
    expect(formatPythonValue(new Date(Date.UTC(2020, 0, 2, 3, 4)))).toBe('datetime.datetime(2020, 1, 2, 3, 4)');
    expect(formatPythonValue(new Date(Date.UTC(2020, 0, 2, 0, 0, 5)))).toBe('datetime.datetime(2020, 1, 2, 0, 0, 5)');
    expect(formatPythonValue(new Date(Date.UTC(2020, 0, 2, 3, 4, 5, 6)))).toBe(
      'datetime.datetime(2020, 1, 2, 3, 4, 5, 6000)',
    );
    expect(formatPythonValue(undefined)).toBe('None');
  });
});

describe('pythonStringRepr', () => {
  it.each(stringCases)('repr(%j) is %s', (text, pythonRepr) => {
    expect(pythonStringRepr(text)).toBe(pythonRepr);
  });
});

describe('pythonFloatRepr', () => {
  it.each(floatCases)('repr(%d) is %s', (value, pythonRepr) => {
    expect(pythonFloatRepr(value)).toBe(pythonRepr);
  });

  it('is used for non-integral plain numbers, while integral ones print as ints', () => {
    expect(formatPythonValue(2.5e-7)).toBe('2.5e-07');
    expect(formatPythonValue(1e16)).toBe('10000000000000000');
    expect(formatPythonValue(new PyFloat(-0))).toBe('-0.0');
    expect(formatPythonValue(Number.NaN)).toBe('nan');
  });
});
