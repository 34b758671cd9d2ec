
const assert = require('node:assert/strict');
const path = require('node:path');
const { describe, it } = require('node:test');
const { parseHeader, parseLine, readFile } = require('../src/csv.js');

describe('parseLine', () => {
  it('splits plain fields', () => {
    assert.deepEqual(parseLine('a,b,c'), ['a', 'b', 'c']);
  });

  it('keeps commas inside quoted fields', () => {
    assert.deepEqual(parseLine('1,"x, y",2'), ['1', 'x, y', '2']);
  });
});

describe('parseHeader', () => {
  it('trims column names', () => {
    assert.deepEqual(parseHeader(' name , city'), ['name', 'city']);
  });
});

describe('readFile', () => {
  it('reads the people fixture', () => {
    const rows = readFile(path.join(__dirname, '..', 'fixtures', 'people.csv'));
    assert.deepEqual(rows, [
      { name: 'Ada', city: 'London' },
      { name: 'Grace', city: 'New York, NY' },
    ]);
  });
});
