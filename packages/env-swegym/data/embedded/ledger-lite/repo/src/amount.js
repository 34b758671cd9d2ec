/** An amount: optional minus sign, digits with optional thousands commas, up to two decimals, currency code. */
const AMOUNT = /^\s*(-?[\d,]+)(?:\.(\d{1,2}))?\s+([A-Z]{3})\s*$/;

/** Parses "1,234.50 EUR" into { cents: 123450, currency: 'EUR' }. */
function parseAmount(text) {
  const match = AMOUNT.exec(text);
  if (!match) {
    throw new Error(`not an amount: ${JSON.stringify(text)}`);
  }
  const [, whole, fraction = '', currency] = match;
  const units = Number(whole.replace(/,/g, ''));
  const cents = units * 100 + Number(fraction.padEnd(2, '0'));
  return { cents, currency };
}

/** Writes digits in groups of three: 1234567 -> "1,234,567". */
function groupThousands(units) {
  return String(units).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Formats { cents: 123450, currency: 'EUR' } as "1,234.50 EUR". */
function formatAmount({ cents, currency }) {
  const units = Math.floor(cents / 100);
  const rest = String(cents % 100).padStart(2, '0');
  return `${groupThousands(units)}.${rest} ${currency}`;
}

module.exports = { parseAmount, formatAmount };
