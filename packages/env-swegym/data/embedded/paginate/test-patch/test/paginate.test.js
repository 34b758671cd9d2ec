const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { hasNextPage, pageCount, pageItems } = require('../src/paginate.js');

describe('pageCount', () => {
  it('counts full pages', () => {
    assert.equal(pageCount(20, 10), 2);
    assert.equal(pageCount(0, 10), 0);
  });

  it('counts a partly filled last page', () => {
    assert.equal(pageCount(25, 10), 3);
    assert.equal(pageCount(1, 10), 1);
  });

  it('refuses a page size below one', () => {
    assert.throws(() => pageCount(10, 0), RangeError);
  });
});

describe('hasNextPage', () => {
  it('is false on the last full page', () => {
    assert.equal(hasNextPage(2, 20, 10), false);
    assert.equal(hasNextPage(1, 20, 10), true);
  });

  it('is true before a partly filled last page', () => {
    assert.equal(hasNextPage(2, 25, 10), true);
    assert.equal(hasNextPage(3, 25, 10), false);
  });
});

describe('pageItems', () => {
  it('slices the second page', () => {
    assert.deepEqual(pageItems([1, 2, 3, 4, 5], 2, 2), [3, 4]);
  });
});

describe('cli', () => {
  it('prints the page count', () => {
    const script = path.join(__dirname, '..', 'bin', 'pages.js');
    assert.equal(execFileSync(process.execPath, [script, '30', '10'], { encoding: 'utf8' }), '3 pages\n');
  });
});
