#!/usr/bin/env node
const { delayFor } = require('../src/backoff.js');

const count = Number(process.argv[2] ?? 5);
for (let attempt = 0; attempt < count; attempt += 1) {
  process.stdout.write(`${delayFor(attempt)}\n`);
}
