#!/usr/bin/env node

const { readLog } = require('../src/parse.js');
const { countByStatus, totalBytes } = require('../src/stats.js');

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: logtally FILE\n');
  process.exit(2);
}
const { entries, skipped } = readLog(path);
const counts = countByStatus(entries);
for (const status of Object.keys(counts).sort()) {
  process.stdout.write(`${status} ${counts[status]}\n`);
}
process.stdout.write(`total ${entries.length} requests, ${totalBytes(entries)} bytes\n`);
if (skipped > 0) process.stderr.write(`logtally: skipped ${skipped} unreadable line(s)\n`);
