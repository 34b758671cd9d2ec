const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { appendParams, parse, stringify } = require('../src/query.js');

describe('stringify', () => {
  it('sorts the keys', () => {
    assert.equal(stringify({ b: 2, a: 1 }), 'a=1&b=2');
  });

  it('encodes reserved characters in keys and values', () => {
    assert.equal(stringify({ q: 'rock & roll', 'a=b': 'c/d' }), 'a%3Db=c%2Fd&q=rock%20%26%20roll');
    assert.deepEqual(parse(stringify({ q: 'x&y=z' })), { q: 'x&y=z' });
  });
});

describe('parse', () => {
  it('decodes keys and values', () => {
    assert.deepEqual(parse('?q=caf%C3%A9&a%20b=1+2'), { q: 'café', 'a b': '1 2' });
  });
});

describe('appendParams', () => {
  it('starts the query with ? or continues it with &', () => {
    assert.equal(appendParams('/search', { q: 'x' }), '/search?q=x');
    assert.equal(appendParams('/search?page=2', { q: 'x' }), '/search?page=2&q=x');
  });

  it('encodes reserved characters in keys and values', () => {
    assert.equal(appendParams('/search', { q: 'fish & chips' }), '/search?q=fish%20%26%20chips');
    assert.equal(appendParams('/s', { 'a&b': '1' }), '/s?a%26b=1');
  });
});

describe('cli', () => {
  it('prints the query string of its arguments', () => {
    const script = path.join(__dirname, '..', 'bin', 'query.js');
    const output = execFileSync(process.execPath, [script, 'page=2', 'lang=en'], { encoding: 'utf8' });
    assert.equal(output, 'lang=en&page=2\n');
  });
});
