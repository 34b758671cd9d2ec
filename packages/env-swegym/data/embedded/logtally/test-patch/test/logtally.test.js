const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { describe, it } = require('node:test');
const { parseLine } = require('../src/parse.js');
const { countByClass, countByStatus } = require('../src/stats.js');

describe('parseLine', () => {
  it('reads a common-format line', () => {
    assert.deepEqual(parseLine('127.0.0.1 - frank [10/Oct/2023:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326'), {
      host: '127.0.0.1',
      time: '10/Oct/2023:13:55:36 -0700',
      method: 'GET',
      path: '/apache_pb.gif',
      status: 200,
      bytes: 2326,
    });
  });

  it('reads a combined-format line', () => {
    const line = '10.0.0.7 - - [12/Mar/2024:10:00:09 +0000] "GET /wp-admin HTTP/1.1" 404 153 "-" "curl/8.4.0"';
    assert.deepEqual(parseLine(line), {
      host: '10.0.0.7',
      time: '12/Mar/2024:10:00:09 +0000',
      method: 'GET',
      path: '/wp-admin',
      status: 404,
      bytes: 153,
      referer: '-',
      agent: 'curl/8.4.0',
    });
  });

  it('reads a common-format line without a response size', () => {
    const line = '127.0.0.1 - - [10/Oct/2023:13:55:40 -0700] "GET /apache_pb.gif HTTP/1.0" 304 -';
    assert.deepEqual(parseLine(line), {
      host: '127.0.0.1',
      time: '10/Oct/2023:13:55:40 -0700',
      method: 'GET',
      path: '/apache_pb.gif',
      status: 304,
      bytes: 0,
    });
    assert.equal(parseLine('127.0.0.1 - - [10/Oct/2023:13:55:41 -0700] "HEAD / HTTP/1.0" 200 -').status, 200);
  });

  it('reads a combined-format line without a response size', () => {
    const line =
      '192.168.1.10 - - [12/Mar/2024:10:00:30 +0000] "GET /style.css HTTP/1.1" 304 - "http://example.com/" "Mozilla/5.0"';
    assert.deepEqual(parseLine(line), {
      host: '192.168.1.10',
      time: '12/Mar/2024:10:00:30 +0000',
      method: 'GET',
      path: '/style.css',
      status: 304,
      bytes: 0,
      referer: 'http://example.com/',
      agent: 'Mozilla/5.0',
    });
  });

  it('returns null for a line in another format', () => {
    assert.equal(parseLine('2024-03-12 10:00:01 GET / 200'), null);
  });
});

describe('countByStatus', () => {
  it('counts the requests of each status', () => {
    const entries = [{ status: 200 }, { status: 404 }, { status: 200 }, { status: 500 }];
    assert.deepEqual(countByStatus(entries), { 200: 2, 404: 1, 500: 1 });
    assert.deepEqual(countByClass(entries), { '2xx': 2, '4xx': 1, '5xx': 1 });
  });
});

describe('cli', () => {
  it('prints the requests per status of the sample log', () => {
    const script = path.join(__dirname, '..', 'bin', 'logtally.js');
    const log = path.join(__dirname, '..', 'fixtures', 'access.log');
    const output = execFileSync(process.execPath, [script, log], { encoding: 'utf8' });
    assert.equal(output, '200 3\n302 1\n404 1\ntotal 5 requests, 15173 bytes\n');
  });
});
