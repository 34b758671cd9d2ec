const fs = require('node:fs');

/** A value without its surrounding quotes, if it has matching ones. */
function unquote(value) {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'") && value.at(-1) === first) {
    return value.slice(1, -1);
  }
  return value;
}

/** The variables of a .env text. */
function parse(text) {
  const variables = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('export ')) {
      const [key, value = ''] = line.slice('export '.length).split('=');
      variables[key.trim()] = unquote(value.trim());
      continue;
    }
    const [key, value = ''] = line.split('=');
    variables[key.trim()] = unquote(value.trim());
  }
  return variables;
}

/** The variables of a .env file. */
function loadFile(path) {
  return parse(fs.readFileSync(path, 'utf8'));
}

module.exports = { parse, loadFile, unquote };
