const fs = require('node:fs');
const { parseAmount } = require('./amount.js');

/** Reads a ledger file: one "date;description;amount" entry a line. */
function readLedger(path) {
  return fs
    .readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [date, description, amount] = line.split(';');
      return { date, description, amount: parseAmount(amount) };
    });
}

/** The sum of the entries in each currency, as amounts sorted by currency. */
function totals(entries) {
  const sums = new Map();
  for (const { amount } of entries) {
    sums.set(amount.currency, (sums.get(amount.currency) ?? 0) + amount.cents);
  }
  return [...sums.keys()].sort().map((currency) => ({ cents: sums.get(currency), currency }));
}

module.exports = { readLedger, totals };
