#!/usr/bin/env node
const { sortVersions } = require('../src/semver.js');

for (const version of sortVersions(process.argv.slice(2))) {
  process.stdout.write(`${version}\n`);
}
