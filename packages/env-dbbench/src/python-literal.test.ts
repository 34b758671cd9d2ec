import { describe, expect, it } from 'vitest';
import { PythonLiteralError, parsePythonLiteral, pythonLiteralRepr, pythonLiteralStr } from './python-literal.js';

// Every expected text below was produced by CPython 3.11 (`repr(eval(source))`).
const literalCases: Array<[source: string, pythonRepr: string]> = [
  ['["a", "b"]', "['a', 'b']"],
  ["('a',)", "('a',)"],
  ['()', '()'],
  ['(1)', '1'],
  ['("a")', "'a'"],
  ['"a", "b"', "('a', 'b')"],
  ['"a",', "('a',)"],
  ['[]', '[]'],
  ['[1, 2,]', '[1, 2]'],
  [' [ "a" , ] # done\n', "['a']"],
  ["'it\\'s'", '"it\'s"'],
  ['"say \\"hi\\""', '\'say "hi"\''],
  ['"\\x41\\u00e9\\U0001F600\\101\\0\\n\\t\\d\\q"', "'A\u00e9\ud83d\ude00A\\x00\\n\\t\\\\d\\\\q'"],
  ['r"a\\nb\\"c"', "'a\\\\nb\\\\\"c'"],
  ['U"x"', "'x'"],
  ["R'\\d'", "'\\\\d'"],
  ['"""tri"ple"""', "'tri\"ple'"],
  ["'''a\nb'''", "'a\\nb'"],
  ['"a" \'b\' "c"', "'abc'"],
  ['"line\\\ncontinued"', "'linecontinued'"],
  ['1_000', '1000'],
  ['0x1F', '31'],
  ['0o17', '15'],
  ['0B101', '5'],
  ['-5', '-5'],
  ['+7', '7'],
  ['- - 3', '3'],
  ['12345678901234567890123', '12345678901234567890123'],
  ['00', '0'],
  ['0_0', '0'],
  ['1e3', '1000.0'],
  ['-2.5', '-2.5'],
  ['.5', '0.5'],
  ['1.', '1.0'],
  ['1.e5', '100000.0'],
  ['1_0.2_5', '10.25'],
  ['1E-5', '1e-05'],
  ['00.5', '0.5'],
  ['1e400', 'inf'],
  ['-0.0', '-0.0'],
  ['None', 'None'],
  ['True', 'True'],
  ['False', 'False'],
  ['-True', '-1'],
  ['+False', '0'],
  ['[("a", 1), [None, 2.5], ()]', "[('a', 1), [None, 2.5], ()]"],
  ['[\n  "a",\n  "b"\n]', "['a', 'b']"],
  ['(\n1,\n)', '(1,)'],
  ['["1\u20130", "Checco D\'Angelo"]', "['1\u20130', \"Checco D'Angelo\"]"],
  ['"\\u2013"', "'\u2013'"],
];
const syntaxErrorCases = [
  'March 19, 1998',
  '[1, 2',
  '["a"]]',
  'abc',
  '0777',
  '1__0',
  '1_',
  '1.5.3',
  '"unterminated',
  '',
  '   ',
  '1,\n2',
  '[1,,2]',
  '"a\nb"',
  'inf',
  'nan',
  '-"a"',
  '-None',
  '(,)',
  '"\\x4"',
  '"\\u12"',
  'x = 1',
];

describe('parsePythonLiteral', () => {
  it.each(literalCases)('evaluates %j like Python', (source, pythonRepr) => {
    expect(pythonLiteralRepr(parsePythonLiteral(source))).toBe(pythonRepr);
  });

  it('keeps Python types', () => {
    expect(parsePythonLiteral('[("a",), 1, 1.0, None, True]')).toEqual({
      type: 'list',
      items: [
        { type: 'tuple', items: [{ type: 'str', value: 'a' }] },
        { type: 'int', value: 1n },
        { type: 'float', value: 1 },
        { type: 'none' },
        { type: 'bool', value: true },
      ],
    });
    expect(pythonLiteralStr(parsePythonLiteral('"a"'))).toBe('a');
    expect(pythonLiteralStr(parsePythonLiteral('["a"]'))).toBe("['a']");
  });

  it.each(syntaxErrorCases)('rejects %j, which Python cannot evaluate either', (source) => {
    expect(() => parsePythonLiteral(source)).toThrow(PythonLiteralError);
  });

  // Python evaluates these, but they are not literals we model: the scorers treat them as unparseable,
  // which only changes a verdict for exotic answers (a set, an expression, a variable name).
  it.each(['1 + 2', '"a" * 2', 'b"x"', 'f"x"', '[1] [0]', '{"a", "b"}', '{}', '"\\N{BULLET}"', '1j', 'cor'])(
    'does not evaluate %j',
    (source) => {
      expect(() => parsePythonLiteral(source)).toThrow(PythonLiteralError);
    },
  );

  it('reports where parsing stopped', () => {
    try {
      parsePythonLiteral('[1, 2');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PythonLiteralError);
      expect((error as PythonLiteralError).position).toBe(5);
      expect((error as PythonLiteralError).message).toMatch(/expected ','/);
    }
  });
});
