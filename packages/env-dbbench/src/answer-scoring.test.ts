import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  evaluateAnswerV02,
  extractFinalAnswerText,
  type FinalAnswer,
  formatHashResult,
  pythonFloatFromString,
  scoreAnswerNormalized,
  scoreAnswerV02,
  scoreWrite,
} from './answer-scoring.js';
import { pythonLiteralRepr } from './python-literal.js';

interface DevRecord {
  type: string[];
  label: string[];
  answer_md5?: string;
}

const devRecords: DevRecord[] = readFileSync(new URL('../data/dev.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as DevRecord);
const writeTypes = new Set(['INSERT', 'UPDATE', 'DELETE']);
const questions = devRecords.filter((record) => !writeTypes.has(record.type[0] ?? ''));
const writes = devRecords.filter((record) => writeTypes.has(record.type[0] ?? ''));

/** Python's `json.dumps(list)`: ", " separators and non-ASCII escaped as \uXXXX (ensure_ascii). */
function jsonDumps(values: string[]): string {
  const unicodeEscape = (character: string) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
  return `[${values.map((value) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, unicodeEscape)).join(', ')}]`;
}

const text = (answerText: string): FinalAnswer => ({ kind: 'text', text: answerText });
const list = (values: Array<string | number | boolean | null>): FinalAnswer => ({ kind: 'list', values });
const bothScorers = [
  ['v0.2', scoreAnswerV02],
  ['normalized', scoreAnswerNormalized],
] as const;

// Expected verdicts computed by running AgentBench's v0.2 metric and main-branch compare_results in CPython 3.11.
const textCases: Array<[answerText: string, label: string[], v02: boolean, normalized: boolean]> = [
  ['March 19, 1998', ['March 19, 1998'], true, true],
  [' March 19, 1998', ['March 19, 1998'], false, true],
  [' ["March 19, 1998"]', ['March 19, 1998'], true, true],
  ['["1.0"]', ['1'], true, true],
  ['"abc"', ['abc'], false, true],
  ['"a"', ['a'], true, true],
  ['"abc"', ['a', 'b', 'c'], true, false],
  ['[1, 2]', ['1', '2'], false, true],
  ['["1", 2]', ['1', '2'], false, true],
  ['[1]', ['1'], true, true],
  ['[True]', ['1'], true, false],
  ['True', ['1'], false, false],
  [' 1_000 ', ['1000'], true, true],
  ['nan', ['nan'], false, true],
  ['inf', ['inf'], true, true],
  ['1e3', ['1000.0'], true, true],
  ['["a", "a", "b"]', ['a', 'b'], true, true],
  ['[["a"], "b"]', ['a', 'b'], false, false],
  ['[("a",), "b"]', ['a', 'b'], false, true],
  ['None', ['none'], false, true],
  ['["none"]', ['none'], true, true],
  ['["1,234"]', ['1234'], false, true],
  ['["50%"]', ['50'], false, true],
  ['["0.504"]', ['0.5'], false, true],
  ['["0.52"]', ['0.5'], false, false],
  ['["1", "1"]', ['1', '2'], false, false],
  ['["2", "1.001"]', ['1', '2'], false, true],
  ["[('a',), ('b',)]", ['a', 'b'], false, true],
  ["[('a', 'b')]", ['a', 'b'], false, false],
  ['[March, April]', ['March', 'April'], false, true],
  ['null', ['none'], false, true],
  ['""', ['none'], false, true],
  ['[1], [2]', ['1', '2'], false, false],
  ['"a", "b"', ['a', 'b'], true, false],
  ['7', ['7'], true, true],
  [' 7', ['7'], true, true],
  ['[7.0]', ['7'], true, true],
  ['["Smith, John"]', ['Smith John'], false, true],
  ['[]', ['7'], false, false],
  ['', ['7'], false, false],
  ["['1\u20130', '2\u20130']", ['2\u20130', '1\u20130'], true, true],
  ['[(7,)]', ['7'], false, true],
  ['["7 "]', ['7'], true, true],
  ['[" a "]', ['a'], false, true],
  ['[1.0, "x"]', ['1', 'x'], false, false],
  ['["1", "x"]', ['1.0', 'x'], false, false],
  ['[None]', ['none'], false, true],
  ['100%', ['100'], false, true],
  ["['a'", ['a'], false, false],
  ['12345678901234567890123456789', ['1.2345678901234568e+28'], true, true],
  ['["a", "b"]', ['a'], false, false],
  ['["a"]', ['a', 'b'], false, false],
  ['[" 1.5 "]', ['1.5'], true, true],
  ['["1.5"]', ['1.50'], true, true],
  ["('x')", ['x'], true, false],
  ['[1, 2, 3]', ['3', '2', '1'], false, true],
  ['["1", "2"]', ['1', '2', '2'], true, false],
  ['[[1]]', ['1'], false, false],
  ['0', ['none'], false, true],
  ['"%"', ['none'], false, false],
  ['[a, , b]', ['a', 'b'], false, false],
  ['-1', ['-1.0'], true, true],
  ['"  "', [' '], true, true],
  ['[0.1, 0.2]', ['0.2', '0.1'], false, true],
];
const listCases: Array<
  [values: Array<string | number | boolean | null>, label: string[], v02: boolean, normalized: boolean]
> = [
  [[1, 2], ['1', '2'], false, true],
  [[1.5], ['1.5'], true, true],
  [[null], ['none'], false, true],
  [[true], ['1'], true, false],
  [['a', 'b'], ['b', 'a'], true, true],
  [['7'], ['7.0'], true, true],
  [[], ['7'], false, false],
  [['March 19, 1998'], ['March 19, 1998'], true, true],
  [[1, 'x'], ['1', 'x'], false, true],
  [['50%'], ['50'], false, true],
];

const floatTextCases: Array<[text: string, value: number | null]> = [
  [' 1.5 ', 1.5],
  ['nan', Number.NaN],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['iNf', Number.POSITIVE_INFINITY],
  ['1_000', 1000.0],
  ['1__0', null],
  ['_1', null],
  ['\uff11\uff12', 12.0],
  ['\u0663.\u0665', 3.5],
  ['1e\u0663', 1000.0],
  ['1e5', 100000.0],
  ['.5', 0.5],
  ['5.', 5.0],
  ['.', null],
  ['+1.5e-3', 0.0015],
  ['0x10', null],
  ['\u001c5', null],
  ['5\u0085', 5.0],
  ['\u00a05', 5.0],
  ['\u30005', 5.0],
  ['\u200b5', null],
  ['\ufeff5', null],
  ['1,000', null],
  ['', null],
  [' ', null],
  ['March 19, 1998', null],
  ['1_000.5_5', 1000.55],
  ['--1', null],
  ['1e', null],
  ['e5', null],
];

describe('dev question records', () => {
  it('has the 20 question records', () => {
    expect(questions).toHaveLength(20);
  });

  describe.each(bothScorers)('%s scorer', (_name, score) => {
    it.each(questions.map((record, index) => [index, record.label] as const))(
      'question %i: the label given back is correct, as text and as a list',
      (_index, label) => {
        const answerText = extractFinalAnswerText(`Action: Answer\nFinal Answer: ${jsonDumps(label)}`) ?? '';
        expect(score(text(answerText), label).correct).toBe(true);
        expect(score(list(label), label).correct).toBe(true);
      },
    );

    it.each(questions.map((record, index) => [index, record.label] as const))(
      'question %i: a sentence, an extra item and a missing item are wrong',
      (_index, label) => {
        expect(score(text(` The answer is ${label.join(', ')}.`), label).correct).toBe(false);
        expect(score(text(jsonDumps([...label, 'Extra item'])), label).correct).toBe(false);
        expect(score(list([...label, 'Extra item']), label).correct).toBe(false);
        expect(score(text(jsonDumps(label.slice(1))), label).correct).toBe(false);
        expect(score(list(label.slice(0, -1)), label).correct).toBe(false);
      },
    );
  });
});

describe('scoring matches AgentBench in Python', () => {
  it.each(textCases)('Final Answer:%s vs %j: v0.2 %s, normalized %s', (answerText, label, v02, normalized) => {
    expect(scoreAnswerV02(text(answerText), label).correct).toBe(v02);
    expect(scoreAnswerNormalized(text(answerText), label).correct).toBe(normalized);
  });

  it.each(listCases)('commit_final_answer(%j) vs %j: v0.2 %s, normalized %s', (values, label, v02, normalized) => {
    expect(scoreAnswerV02(list(values), label).correct).toBe(v02);
    expect(scoreAnswerNormalized(list(values), label).correct).toBe(normalized);
  });
});

describe('scoreAnswerV02', () => {
  it('accepts an unquoted single answer only without the leading space the v0.2 regex keeps', () => {
    const label = ['March 19, 1998'];
    expect(scoreAnswerV02(text('March 19, 1998'), label).correct).toBe(true);
    const extracted = extractFinalAnswerText('Action: Answer\nFinal Answer: March 19, 1998');
    expect(extracted).toBe(' March 19, 1998');
    // eval fails, so the text itself is compared, space included: Python scores this wrong.
    expect(scoreAnswerV02(text(extracted ?? ''), label)).toEqual({
      correct: false,
      detail: "compared with ==: ' March 19, 1998' vs 'March 19, 1998'",
    });
  });

  it('turns a quoted string into its characters, as list() does', () => {
    expect(evaluateAnswerV02('"abc"').map(pythonLiteralRepr)).toEqual(["'a'", "'b'", "'c'"]);
    expect(scoreAnswerV02(text('"abc"'), ['abc']).detail).toBe(`compared as sets: ['a', 'b', 'c'] vs ["abc"]`);
  });

  it('keeps non-iterables as the original text', () => {
    expect(evaluateAnswerV02(' 7').map(pythonLiteralRepr)).toEqual(["' 7'"]);
    expect(evaluateAnswerV02('None').map(pythonLiteralRepr)).toEqual(["'None'"]);
  });

  it('compares ints and strs as different set members', () => {
    expect(scoreAnswerV02(text('[1, 2]'), ['1', '2'])).toEqual({
      correct: false,
      detail: `compared as sets: [1, 2] vs ["1","2"]`,
    });
    expect(scoreAnswerNormalized(text('[1, 2]'), ['1', '2']).correct).toBe(true);
  });

  it('counts unhashable items and float() overflow as wrong', () => {
    expect(scoreAnswerV02(text('[["a"], "b"]'), ['a', 'b']).detail).toMatch(/^unhashable/);
    expect(scoreAnswerV02(text(`[1${'0'.repeat(400)}]`), ['1']).detail).toMatch(/^float\(\) overflows/);
  });
});

describe('pythonFloatFromString', () => {
  it.each(floatTextCases)('float(%j) is %s', (input, value) => {
    expect(pythonFloatFromString(input)).toBe(value ?? undefined);
  });
});

describe('extractFinalAnswerText', () => {
  it('takes the rest of the first Final Answer line, as re.search(r"\\nFinal Answer:(.*)")', () => {
    expect(extractFinalAnswerText('Thought.\nAction: Answer\nFinal Answer: ["a"]\r\nmore')).toBe(' ["a"]\r');
    expect(extractFinalAnswerText('Final Answer: ["a"]')).toBeNull();
    expect(extractFinalAnswerText('x\nFinal Answer:\u2028["a"]')).toBe('\u2028["a"]');
  });
});

describe('scoreWrite', () => {
  it('reproduces every dev answer_md5 text from its hash', () => {
    expect(writes).toHaveLength(40);
    for (const record of writes) {
      const answerMd5 = record.answer_md5 ?? '';
      const hash = /^\[\('([0-9a-f]{32})',\)\]$/.exec(answerMd5)?.[1] ?? '';
      expect(formatHashResult(hash)).toBe(answerMd5);
      expect(scoreWrite(hash, answerMd5).correct).toBe(true);
      expect(
        scoreWrite(
          hash.replace(/^./, (digit) => (digit === '0' ? '1' : '0')),
          answerMd5,
        ).correct,
      ).toBe(false);
    }
  });

  it('prints an empty table hash as None', () => {
    expect(formatHashResult(null)).toBe('[(None,)]');
    expect(scoreWrite(null, "[('03b2eddd4fe471e0f29fc9e907fd5a5d',)]")).toEqual({
      correct: false,
      detail: "[(None,)] != [('03b2eddd4fe471e0f29fc9e907fd5a5d',)]",
    });
  });
});
