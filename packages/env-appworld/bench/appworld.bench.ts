/**
 * env-appworld speed: how fast an episode starts from its task's initial state (three ways to
 * restore, side by side), how fast a task's initial state is built (hashing only what its setup
 * wrote, against hashing every table), how many API calls per second the world serves in process, through the
 * sandbox and over HTTP, and whole oracle episodes in process and through the server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rightPath } from '@harness-s/core';
import BetterSqlite3 from 'better-sqlite3';
import { createAppWorldEnvironment } from '../src/environment.js';
import { snapshotState } from '../src/evaluation/state-diff.js';
import { createAppWorldRemoteEnvironment } from '../src/remote.js';
import { sharedWorkerPool } from '../src/sandbox/worker-pool.js';
import { startAppWorldServer } from '../src/server.js';
import { generateWorld } from '../src/world/generate.js';
import { WorldSession } from '../src/world/session.js';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 200);

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}
const row = (name: string, values: readonly number[], unit = 'ms') =>
  console.log(
    `${name.padEnd(44)} p50 ${percentile(values, 0.5).toFixed(3).padStart(9)} ${unit}   p95 ${percentile(values, 0.95).toFixed(3).padStart(9)} ${unit}`,
  );
const timed = (work: () => void): number => {
  const start = performance.now();
  work();
  return performance.now() - start;
};

let mark = performance.now();
const environment = createAppWorldEnvironment();
const { world } = environment;
console.log(
  `world: ${world.tasks.length} tasks, generated and tasks built in ${(performance.now() - mark).toFixed(0)} ms`,
);
const task = world.tasks.find((item) => item.task.split === 'dev')?.task;
if (!task) throw new Error('no dev task');
const state = world.initialState(task.id);
console.log(`initial state: ${(state.buffer.length / 1024).toFixed(0)} KB serialized\n`);

console.log(`Episode reset: restore the task's initial state (${rounds} rounds each; the first is used)`);
const deserialize = Array.from({ length: rounds }, () => timed(() => new BetterSqlite3(state.buffer).close()));
row('new Database(serialized initial state)', deserialize);
// SQLite's online backup API, from an open copy of the initial state into a file, then opened.
const directory = await mkdtemp(join(tmpdir(), 'appworld-bench-'));
const source = new BetterSqlite3(state.buffer);
const backup: number[] = [];
for (let round = 0; round < Math.min(rounds, 50); round += 1) {
  const file = join(directory, `copy-${round}.db`);
  const start = performance.now();
  await source.backup(file);
  new BetterSqlite3(file).close();
  backup.push(performance.now() - start);
}
row('SQLite backup() to a file, then open it', backup);
source.close();
await rm(directory, { recursive: true, force: true });
const replay = Array.from({ length: Math.min(rounds, 50) }, () => timed(() => world.rebuildState(task.id).close()));
row("base state + replay the task's changes", replay);
const regenerate = Array.from({ length: 3 }, () => timed(() => generateWorld(world.seed).close()));
row('generate the world again', regenerate);

// A task's initial state is built once per task and cached (16 at a time); with all the world's tasks
// in turn, each is built again. Its record hashes (for evaluation) are most of the cost.
console.log(`\nA task's initial state, built anew (each of the ${world.tasks.length} tasks in turn)`);
const ids = world.tasks.map((item) => item.task.id);
const wholeHash = ids.map((id) =>
  timed(() => {
    const rebuilt = world.rebuildState(id);
    rebuilt.serialize();
    snapshotState(rebuilt);
    rebuilt.close();
  }),
);
row('hash every table (baseline)', wholeHash);
row(
  'hash only what its setup wrote (initialState)',
  ids.map((id) => timed(() => world.initialState(id))),
);

console.log('\nAPI calls per second');
const db = world.openState(task.id);
const session = new WorldSession(db, { supervisorId: 1, now: task.datetime, seed: 1 });
const password = (
  db.prepare("SELECT password FROM supervisor_passwords WHERE person_id = 1 AND account_name = 'music'").get() as {
    password: string;
  }
).password;
const email = (db.prepare('SELECT email FROM people WHERE id = 1').get() as { email: string }).email;
const token = (session.call('music', 'login', { username: email, password }) as { access_token: string }).access_token;
const calls = 5_000;
let elapsed = timed(() => {
  for (let index = 0; index < calls; index += 1)
    session.call('music', 'show_liked_songs', { access_token: token, page_index: index % 4 });
});
const inProcess = calls / (elapsed / 1000);
console.log(`${'in process (WorldSession.call)'.padEnd(44)} ${inProcess.toFixed(0).padStart(9)} calls/s`);
db.close();

const episode = await environment.open(task);
const loop = `var token = apis.music.login({ username: '${email}', password: '${password}' }).access_token;`;
await episode.step({ tool: 'execute', arguments: { code: loop } });
const sandboxCalls = 1_000;
mark = performance.now();
await episode.step({
  tool: 'execute',
  arguments: {
    code: `for (var i = 0; i < ${sandboxCalls}; i += 1) apis.music.show_liked_songs({ access_token: token });`,
  },
});
elapsed = performance.now() - mark;
console.log(
  `${'through the sandbox (one code block)'.padEnd(44)} ${(sandboxCalls / (elapsed / 1000)).toFixed(0).padStart(9)} calls/s`,
);
await episode.close();

const server = await startAppWorldServer({ environment });
const remote = createAppWorldRemoteEnvironment({ urls: [server.url] });
const remoteTask = (await remote.loadTasks({ split: 'dev' })).tasks.find((item) => item.id === task.id);
if (!remoteTask) throw new Error('task not served');
const remoteEpisode = await remote.open(remoteTask);
await remoteEpisode.step({ tool: 'execute', arguments: { code: loop } });
mark = performance.now();
await remoteEpisode.step({
  tool: 'execute',
  arguments: {
    code: `for (var i = 0; i < ${sandboxCalls}; i += 1) apis.music.show_liked_songs({ access_token: token });`,
  },
});
elapsed = performance.now() - mark;
console.log(
  `${'over HTTP (one /execute, calls inside)'.padEnd(44)} ${(sandboxCalls / (elapsed / 1000)).toFixed(0).padStart(9)} calls/s`,
);
const requests = 200;
mark = performance.now();
for (let index = 0; index < requests; index += 1) {
  await remoteEpisode.step({
    tool: 'execute',
    arguments: { code: 'apis.music.show_liked_songs({ access_token: token });' },
  });
}
elapsed = performance.now() - mark;
console.log(
  `${'over HTTP (one call per /execute + /task_completed)'.padEnd(44)} ${(requests / (elapsed / 1000)).toFixed(0).padStart(9)} calls/s`,
);
await remoteEpisode.close();

console.log('\nWhole oracle episodes on the dev split (open, plan, evaluate, close)');
const devTasks = (await environment.loadTasks({ split: 'dev' })).tasks;
for (const [label, env, list] of [
  ['in process', environment, devTasks],
  ['over HTTP', remote, (await remote.loadTasks({ split: 'dev' })).tasks],
] as const) {
  const opens: number[] = [];
  const totals: number[] = [];
  for (const item of list) {
    const start = performance.now();
    const opened = await env.open(item);
    opens.push(performance.now() - start);
    for (const action of rightPath(env.oraclePlan(item).nodes)) if ((await opened.step(action)).done) break;
    const evaluation = await opened.evaluate();
    await opened.close();
    totals.push(performance.now() - start);
    if (!evaluation.success) throw new Error(`oracle failed on ${item.id} (${label})`);
  }
  row(`episode open, ${label}`, opens);
  row(`whole episode, ${label}`, totals);
}
await server.close();
await environment.close();
await sharedWorkerPool.close();
