#!/usr/bin/env node
const { pageCount } = require('../src/paginate.js');

const [total, perPage] = process.argv.slice(2).map(Number);
const count = pageCount(total, perPage);
process.stdout.write(`${count} ${count === 1 ? 'page' : 'pages'}\n`);
