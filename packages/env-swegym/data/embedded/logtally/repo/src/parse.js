const fs = require('node:fs');

/** Common Log Format: host ident user [time] "request" status size */
const COMMON =
  /^(?<host>\S+) \S+ \S+ \[(?<time>[^\]]+)\] "(?<method>[A-Z]+) (?<path>\S+)[^"]*" (?<status>\d{3}) (?<size>\d+)$/;

/** Combined Log Format: the common fields, then "referer" "user-agent". */
const COMBINED =
  /^(?<host>\S+) \S+ \S+ \[(?<time>[^\]]+)\] "(?<method>[A-Z]+) (?<path>\S+)[^"]*" (?<status>\d{3}) (?<size>\d+) "(?<referer>[^"]*)" "(?<agent>[^"]*)"$/;

/** The response size in bytes; the server writes `-` when it sent no body. */
function parseSize(text) {
  return text === '-' ? 0 : Number(text);
}

function toEntry(groups) {
  const entry = {
    host: groups.host,
    time: groups.time,
    method: groups.method,
    path: groups.path,
    status: Number(groups.status),
    bytes: parseSize(groups.size),
  };
  if (groups.agent !== undefined) {
    entry.referer = groups.referer;
    entry.agent = groups.agent;
  }
  return entry;
}

/** One log line as an entry, or null if it is in neither format. */
function parseLine(line) {
  const match = COMBINED.exec(line) ?? COMMON.exec(line);
  return match ? toEntry(match.groups) : null;
}

/** The entries of a log text, and how many non-blank lines could not be read. */
function parseLog(text) {
  const entries = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseLine(line);
    if (entry) entries.push(entry);
    else skipped += 1;
  }
  return { entries, skipped };
}

/** The entries of a log file. */
function readLog(path) {
  return parseLog(fs.readFileSync(path, 'utf8'));
}

module.exports = { parseLine, parseLog, readLog };
