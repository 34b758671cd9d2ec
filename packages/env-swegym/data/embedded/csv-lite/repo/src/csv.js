const fs = require('node:fs');

/** Splits one CSV line into fields; a field in double quotes may contain commas. */
function parseLine(line) {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quoted) {
      if (char === '"') {
        quoted = false;
      } else {
        field += char;
      }
    } else if (char === '"') {
      quoted = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
    } else {
      field += char;
    }
  }
  fields.push(field);
  return fields;
}

/** Splits the header line into column names, trimmed. */
function parseHeader(line) {
  const names = [];
  let name = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (quoted) {
      if (char === '"') {
        quoted = false;
      } else {
        name += char;
      }
    } else if (char === '"') {
      quoted = true;
    } else if (char === ',') {
      names.push(name.trim());
      name = '';
    } else {
      name += char;
    }
  }
  names.push(name.trim());
  return names;
}

/** Rows as objects keyed by the header's column names. */
function toObjects(header, rows) {
  return rows.map((row) => {
    const object = {};
    header.forEach((column, index) => {
      object[column] = row[index] ?? '';
    });
    return object;
  });
}

/** Reads a CSV file with a header line into objects. */
function readFile(path) {
  const lines = fs
    .readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const [headerLine, ...rowLines] = lines;
  return toObjects(parseHeader(headerLine ?? ''), rowLines.map(parseLine));
}

module.exports = { parseLine, parseHeader, toObjects, readFile };
