const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { delayFor, schedule } = require('../src/backoff.js');

describe('delayFor', () => {
  it('doubles the delay each attempt', () => {
    assert.deepEqual([0, 1, 2, 3].map((attempt) => delayFor(attempt)), [100, 200, 400, 800]);
  });

  it('never waits longer than max', () => {
    assert.equal(delayFor(10, { base: 100, max: 5000 }), 5000);
    assert.equal(delayFor(2, { base: 100, max: 5000 }), 400);
  });

  it('refuses a max below the base', () => {
    assert.throws(() => delayFor(0, { base: 100, max: 50 }), RangeError);
  });
});

describe('schedule', () => {
  it('lists the delays of the first retries', () => {
    assert.deepEqual(schedule(3, { base: 10 }), [10, 20, 40]);
  });

  it('caps every delay at max', () => {
    assert.deepEqual(schedule(6, { base: 100, max: 1000 }), [100, 200, 400, 800, 1000, 1000]);
  });
});

describe('cli', () => {
  it('prints the first delays', () => {
    const script = path.join(__dirname, '..', 'bin', 'backoff.js');
    assert.equal(execFileSync(process.execPath, [script, '3'], { encoding: 'utf8' }), '100\n200\n400\n');
  });
});
