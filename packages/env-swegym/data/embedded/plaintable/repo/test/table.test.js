const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { parseTable } = require('../src/read.js');
const { columnWidths, renderTable } = require('../src/table.js');

describe('columnWidths', () => {
  it('uses the longest cell or the header', () => {
    assert.deepEqual(columnWidths(['id', 'name'], [['1', 'Ada'], ['22', 'Lovelace']]), [2, 8]);
  });
});

describe('renderTable', () => {
  it('left-aligns text and right-aligns numbers', () => {
    const text = renderTable(['name', 'age'], [['Ada', '36'], ['Grace', '85'], ['Al', '7']]);
    assert.equal(text, 'name   age\n-----  ---\nAda     36\nGrace   85\nAl       7');
  });

  it('accepts numbers as cells', () => {
    assert.equal(renderTable(['n', 'square'], [[3, 9], [12, 144]]), ' n  square\n--  ------\n 3       9\n12     144');
  });
});

describe('parseTable', () => {
  it('splits lines into trimmed cells', () => {
    assert.deepEqual(parseTable('a, b\n1,2\n\n3 ,4\n'), { header: ['a', 'b'], rows: [['1', '2'], ['3', '4']] });
  });
});

describe('cli', () => {
  it('prints the scores fixture', () => {
    const script = path.join(__dirname, '..', 'bin', 'plaintable.js');
    const fixture = path.join(__dirname, '..', 'fixtures', 'scores.csv');
    assert.equal(
      execFileSync(process.execPath, [script, fixture], { encoding: 'utf8' }),
      [
        'player  points  team',
        '------  ------  -----',
        'Ada       1200  red',
        'Grace      950  blue',
        'Edsger      87  green',
        '',
      ].join('\n'),
    );
  });
});
