#!/usr/bin/env node
const { stringify } = require('../src/query.js');

// query key=value ... prints the query string of the pairs.
const params = {};
for (const argument of process.argv.slice(2)) {
  const [key, ...rest] = argument.split('=');
  params[key] = rest.join('=');
}
process.stdout.write(`${stringify(params)}\n`);
