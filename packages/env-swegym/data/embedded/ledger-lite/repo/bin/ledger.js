#!/usr/bin/env node

const { formatAmount } = require('../src/amount.js');
const { readLedger, totals } = require('../src/ledger.js');

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: ledger FILE\n');
  process.exit(2);
}
const entries = readLedger(path);
for (const { date, description, amount } of entries) {
  process.stdout.write(`${date} ${description} ${formatAmount(amount)}\n`);
}
for (const total of totals(entries)) {
  process.stdout.write(`total ${formatAmount(total)}\n`);
}
