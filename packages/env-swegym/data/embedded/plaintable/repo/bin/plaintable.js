#!/usr/bin/env node

const { readTable } = require('../src/read.js');
const { renderTable } = require('../src/table.js');

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: plaintable FILE\n');
  process.exit(2);
}
const { header, rows } = readTable(path);
process.stdout.write(`${renderTable(header, rows)}\n`);
