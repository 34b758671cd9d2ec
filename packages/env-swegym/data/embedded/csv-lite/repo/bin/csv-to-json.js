#!/usr/bin/env node

const { readFile } = require('../src/csv.js');

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: csv-to-json FILE\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(readFile(path), null, 2)}\n`);
