const fs = require('node:fs');

/** The header and rows of comma-separated lines (no quoting); cells are trimmed, blank lines skipped. */
function parseTable(text) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const [header = [], ...rows] = lines.map((line) => line.split(',').map((cell) => cell.trim()));
  return { header, rows };
}

/** `parseTable` of a file. */
function readTable(path) {
  return parseTable(fs.readFileSync(path, 'utf8'));
}

module.exports = { parseTable, readTable };
