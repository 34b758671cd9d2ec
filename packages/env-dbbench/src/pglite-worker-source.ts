/**
 * The program of a PGlite worker thread (pglite-host.ts): one embedded engine, serving the requests of
 * the main thread one at a time. It is plain JavaScript run with `eval`, so that it needs no build
 * and no TypeScript loader: it loads only PGlite and Node's own modules.
 *
 * workerData: `pglitePath` (PGlite's entry point), `dataDir` (a folder for the cluster, or undefined
 * for memory), `initialDump` (a gzipped initial data directory to start from, or null), `textTypes`
 * (type OIDs whose values are passed on as text) and `maxErrorChars`.
 *
 * Messages to the main thread: `{ kind: 'ready', dump }` once the engine runs (`dump`: the initial
 * data directory when the engine had to initialise one, for the cache), `{ kind: 'failed', message }`
 * when it cannot start, and `{ kind: 'reply', id, ok, ..., inTransaction }` for each request:
 * `{ op: 'exec', sql }`, `{ op: 'query', sql, params, text, caps, after }` (rows as arrays; with `caps`
 * `{ maxRows, maxBytes }` only the rows the caller may keep, plus the first it may not, are sent,
 * that one's long cells cut to just past the byte cap: the byte count is `cellBytes` of cell-values.ts; `after` is a query run once the first succeeded,
 * its rows sent as `afterRows`) and `{ op: 'close' }`. Any request may carry `before`, statements run
 * first: when one fails, the request fails with its error.
 */
export const pgliteWorkerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglitePath);
const textParsers = Object.fromEntries(workerData.textTypes.map((oid) => [oid, (text) => text]));
const cellBytes = (raw) =>
  raw === null || raw === undefined ? 1
    : typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8')
    : raw instanceof Uint8Array ? raw.byteLength
    : 8;
let engine;

async function start() {
  if (workerData.dataDir !== undefined) {
    engine = await PGlite.create({ dataDir: workerData.dataDir });
    return null;
  }
  if (workerData.initialDump) {
    try {
      engine = await PGlite.create({ loadDataDir: new Blob([workerData.initialDump]) });
      return null;
    } catch {
      engine = undefined;
    }
  }
  engine = await PGlite.create();
  try {
    return await (await engine.dumpDataDir('gzip')).arrayBuffer();
  } catch {
    return null;
  }
}

// The first row past the byte cap goes with its long cells cut to just past the cap: enough for the
// caller to see it does not fit, without copying a huge value to the main thread.
const cut = (cell, maxBytes) =>
  typeof cell === 'string' && cell.length > maxBytes + 1 ? cell.slice(0, maxBytes + 1)
    : cell instanceof Uint8Array && cell.byteLength > maxBytes + 1 ? cell.slice(0, maxBytes + 1)
    : cell;

function capped(rows, caps) {
  if (!caps) return rows;
  const kept = [];
  let bytes = 0;
  for (const row of rows) {
    if (kept.length >= caps.maxRows) {
      kept.push(row);
      break;
    }
    for (const cell of row) bytes += cellBytes(cell);
    if (bytes > caps.maxBytes) {
      kept.push(row.map((cell) => cut(cell, caps.maxBytes)));
      break;
    }
    kept.push(row);
  }
  return kept;
}

async function handle(request) {
  for (const sql of request.before || []) await engine.exec(sql);
  if (request.op === 'exec') {
    await engine.exec(request.sql);
    return {};
  }
  if (request.op === 'query') {
    const options = request.text ? { rowMode: 'array', parsers: textParsers } : { rowMode: 'array' };
    const result = await engine.query(request.sql, request.params || [], options);
    const fields = result.fields.map((field) => ({ name: field.name, dataTypeID: field.dataTypeID }));
    const reply = { fields, rows: capped(result.rows, request.caps) };
    if (request.after) {
      try {
        reply.afterRows = (await engine.query(request.after, [], { rowMode: 'array' })).rows;
      } catch {
        // The caller asks again, and hears the error.
      }
    }
    return reply;
  }
  if (request.op === 'close') {
    await engine.close();
    return {};
  }
  throw new Error('unknown request ' + request.op);
}

function inTransaction() {
  try {
    return engine.isInTransaction();
  } catch {
    return false;
  }
}

function errorOf(error) {
  let message = String((error && error.message) || error);
  if (message.length > workerData.maxErrorChars) {
    message = message.slice(0, workerData.maxErrorChars) + '... (the message was cut: it is longer than ' + workerData.maxErrorChars + ' characters)';
  }
  return { message, code: error && typeof error.code === 'string' ? error.code : undefined };
}

start().then(
  (dump) => {
    parentPort.postMessage({ kind: 'ready', dump }, dump ? [dump] : []);
    let queue = Promise.resolve();
    parentPort.on('message', (request) => {
      queue = queue.then(async () => {
        try {
          const result = await handle(request);
          parentPort.postMessage({ kind: 'reply', id: request.id, ok: true, ...result, inTransaction: inTransaction() });
        } catch (error) {
          parentPort.postMessage({ kind: 'reply', id: request.id, ok: false, error: errorOf(error), inTransaction: inTransaction() });
        }
      });
    });
  },
  (error) => parentPort.postMessage({ kind: 'failed', message: String((error && error.message) || error) }),
);
`;
