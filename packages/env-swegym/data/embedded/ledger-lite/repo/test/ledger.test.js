const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { formatAmount, parseAmount } = require('../src/amount.js');
const { totals } = require('../src/ledger.js');

describe('parseAmount', () => {
  it('reads thousands separators and the currency', () => {
    assert.deepEqual(parseAmount('1,234.50 EUR'), { cents: 123450, currency: 'EUR' });
  });

  it('pads a short fraction', () => {
    assert.deepEqual(parseAmount('42.5 USD'), { cents: 4250, currency: 'USD' });
    assert.deepEqual(parseAmount('7 USD'), { cents: 700, currency: 'USD' });
  });
});

describe('formatAmount', () => {
  it('groups thousands', () => {
    assert.equal(formatAmount({ cents: 123456789, currency: 'EUR' }), '1,234,567.89 EUR');
    assert.equal(formatAmount({ cents: 5, currency: 'USD' }), '0.05 USD');
  });
});

describe('totals', () => {
  it('sums each currency', () => {
    const entries = ['10.00 EUR', '2.50 USD', '0.75 EUR'].map((text) => ({ amount: parseAmount(text) }));
    assert.deepEqual(totals(entries), [
      { cents: 1075, currency: 'EUR' },
      { cents: 250, currency: 'USD' },
    ]);
  });
});

describe('cli', () => {
  it('prints the entries and totals of the march ledger', () => {
    const script = path.join(__dirname, '..', 'bin', 'ledger.js');
    const ledger = path.join(__dirname, '..', 'fixtures', 'march.ledger');
    assert.equal(
      execFileSync(process.execPath, [script, ledger], { encoding: 'utf8' }),
      [
        '2024-03-01 Rent 1,250.00 EUR',
        '2024-03-04 Groceries 86.40 EUR',
        '2024-03-09 Train tickets 42.50 EUR',
        '2024-03-15 Hosting 19.99 USD',
        'total 1,378.90 EUR',
        'total 19.99 USD',
        '',
      ].join('\n'),
    );
  });
});
