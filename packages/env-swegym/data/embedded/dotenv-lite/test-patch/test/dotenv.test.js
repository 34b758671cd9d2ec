const assert = require('node:assert/strict');
const path = require('node:path');
const { describe, it } = require('node:test');
const { loadFile, parse } = require('../src/dotenv.js');

describe('parse', () => {
  it('skips comments and blank lines', () => {
    assert.deepEqual(parse('# comment\n\nA=1\n'), { A: '1' });
  });

  it('strips matching quotes', () => {
    assert.deepEqual(parse(`A="x y"\nB='z'\nC="unbalanced'`), { A: 'x y', B: 'z', C: `"unbalanced'` });
  });

  it('reads export lines', () => {
    assert.deepEqual(parse('export A=1'), { A: '1' });
  });

  it('keeps = signs inside values', () => {
    assert.deepEqual(parse('URL=postgres://db/app?sslmode=require\nEQ="a=b=c"'), {
      URL: 'postgres://db/app?sslmode=require',
      EQ: 'a=b=c',
    });
  });

  it('keeps = signs inside exported values', () => {
    assert.deepEqual(parse('export TOKEN=abc==\nexport Q="x=1"'), { TOKEN: 'abc==', Q: 'x=1' });
  });
});

describe('loadFile', () => {
  it('reads the sample file', () => {
    assert.deepEqual(loadFile(path.join(__dirname, '..', 'fixtures', 'app.env')), {
      APP_NAME: 'Sample App',
      PORT: '8080',
      LOG_LEVEL: 'debug',
    });
  });
});
