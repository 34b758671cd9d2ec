const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { compare, satisfies } = require('../src/semver.js');

describe('compare', () => {
  it('orders by major version first', () => {
    assert.equal(compare('2.0.0', '1.9.9'), 1);
    assert.equal(compare('1.0.0', '2.0.0'), -1);
  });

  it('finds equal versions equal', () => {
    assert.equal(compare('1.2.3', '1.2.3'), 0);
  });

  it('compares the parts as numbers', () => {
    assert.equal(compare('1.10.0', '1.9.0'), 1);
    assert.equal(compare('1.2.10', '1.2.9'), 1);
    assert.equal(compare('9.0.0', '10.0.0'), -1);
  });
});

describe('satisfies', () => {
  it('rejects another major version', () => {
    assert.equal(satisfies('2.0.0', '^1.2.0'), false);
  });

  it('accepts a later minor version', () => {
    assert.equal(satisfies('1.3.0', '^1.2.0'), true);
  });

  it('compares minor and patch versions as numbers', () => {
    assert.equal(satisfies('1.10.0', '^1.9.0'), true);
    assert.equal(satisfies('1.2.10', '^1.2.9'), true);
    assert.equal(satisfies('1.9.0', '^1.10.0'), false);
  });
});

describe('cli', () => {
  it('prints the versions sorted, one a line', () => {
    const script = path.join(__dirname, '..', 'bin', 'semver-sort.js');
    const output = execFileSync(process.execPath, [script, '2.0.0', '1.0.0', '1.5.0'], { encoding: 'utf8' });
    assert.equal(output, '1.0.0\n1.5.0\n2.0.0\n');
  });
});
