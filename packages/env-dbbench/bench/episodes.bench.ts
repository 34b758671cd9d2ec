/**
 * Episode throughput of env-dbbench per backend: this package's resets against the naive approach
 * (create a database, create the table, insert the rows, run, drop it: every episode), measured in
 * the same run on the same workload. An episode is: open, the oracle's SQL statements, reading the
 * table back (as evaluation does), close. Tasks are opened K times each, in task order, as
 * `harness-s eval` schedules attempts; the first pass builds what the reset keeps (MySQL stores the
 * initial tables), the second is the reopen the hot path is about (rescue attempts, later epochs).
 * Each measurement stops starting episodes after BENCH_SECONDS (default 2.5).
 *
 * Servers: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) and BENCH_MYSQL_URL
 * (default mysql://root@127.0.0.1:3306/test); one that does not answer is skipped with the reason.
 */
import { rightPath } from '@harness-s/core';
import type { DbbenchBackend } from '../src/backend.js';
import { createBackendFromUrl } from '../src/backend-factory.js';
import { dbbenchOraclePlan } from '../src/oracle-plan.js';
import type { DbbenchTask } from '../src/records.js';
import { loadDbbenchFile } from '../src/records.js';
import { createNaiveMysqlBackend, createNaivePgliteBackend, createNaivePostgresBackend } from './naive-backends.js';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 2.5);
const attemptsPerTask = 4;
const concurrencies = [1, 8, 32];
const taskCount = Number(process.env['BENCH_TASKS'] ?? 16);

interface Measure {
  episodes: number;
  seconds: number;
  open: number[];
  close: number[];
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/** Runs tasks x K episodes (task-major) with `concurrency` in flight, until done or the time is up. */
async function pass(backend: DbbenchBackend, tasks: DbbenchTask[], concurrency: number): Promise<Measure> {
  const queue = tasks.flatMap((task) => Array.from({ length: attemptsPerTask }, () => task));
  const measure: Measure = { episodes: 0, seconds: 0, open: [], close: [] };
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const statements = new Map(
    tasks.map((task) => [
      task.id,
      rightPath(dbbenchOraclePlan(task, backend.dialect).nodes).flatMap((action) =>
        action.tool === 'execute_sql' ? [String(action.arguments['query'])] : [],
      ),
    ]),
  );
  const worker = async () => {
    for (let task = queue.shift(); task && performance.now() < deadline; task = queue.shift()) {
      let mark = performance.now();
      const session = await backend.openSession(task);
      measure.open.push(performance.now() - mark);
      for (const sql of statements.get(task.id) ?? []) {
        const outcome = await session.execute(sql);
        if (!outcome.ok) throw new Error(`${backend.name} ${task.id}: ${outcome.message}`);
      }
      if ('error' in (await session.readTable())) throw new Error(`${backend.name} ${task.id}: table unreadable`);
      mark = performance.now();
      await session.close();
      measure.close.push(performance.now() - mark);
      measure.episodes += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  measure.seconds = (performance.now() - start) / 1000;
  return measure;
}

const rate = (measure: Measure) => measure.episodes / measure.seconds;

/** One episode before measuring, so that starting an engine (PGlite: seconds) is not counted. */
async function warmUp(backend: DbbenchBackend, task: DbbenchTask): Promise<void> {
  await backend.start();
  await (await backend.openSession(task)).close();
}

function row(label: string, concurrency: number, measure: Measure, baseline?: Measure): string {
  const cells = [
    label.padEnd(22),
    String(concurrency).padStart(3),
    rate(measure).toFixed(1).padStart(9),
    percentile(measure.open, 0.5).toFixed(1).padStart(9),
    percentile(measure.open, 0.95).toFixed(1).padStart(9),
    percentile(measure.close, 0.5).toFixed(1).padStart(9),
    percentile(measure.close, 0.95).toFixed(1).padStart(9),
    baseline ? `${(rate(measure) / rate(baseline)).toFixed(1)}x`.padStart(8) : '       -',
  ];
  return cells.join('  ');
}

interface Target {
  name: string;
  url: string;
  naive: () => DbbenchBackend;
}

const allTargets: Target[] = [
  { name: 'PGlite', url: 'pglite:', naive: createNaivePgliteBackend },
  {
    name: 'PostgreSQL',
    url: process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    naive: () =>
      createNaivePostgresBackend(process.env['BENCH_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test'),
  },
  {
    name: 'MySQL/MariaDB',
    url: process.env['BENCH_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306/test',
    naive: () => createNaiveMysqlBackend(process.env['BENCH_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306/test'),
  },
];

/** BENCH_TARGETS=pglite,postgresql,mysql (default all) picks backends by name prefix. */
const wanted = (process.env['BENCH_TARGETS'] ?? '').toLowerCase().split(',').filter(Boolean);
const targets = allTargets.filter(
  (target) => wanted.length === 0 || wanted.some((name) => target.name.toLowerCase().startsWith(name)),
);

const loaded = await loadDbbenchFile(new URL('../data/dev.jsonl', import.meta.url).pathname, 'dev');
const tasks = loaded.tasks.slice(0, taskCount);
console.log(
  `env-dbbench episodes: ${tasks.length} dev tasks x ${attemptsPerTask} attempts, task by task; ${seconds} s per measurement`,
);
for (const target of targets) {
  const probe = createBackendFromUrl(target.url);
  try {
    await probe.start();
  } catch (error) {
    console.log(`\n${target.name}: skipped (${(error as Error).message})`);
    continue;
  } finally {
    await probe.close();
  }
  console.log(`\n${target.name} (${target.url})`);
  console.log('approach                  c  episodes/s  open p50  open p95  close p50  close p95  vs naive');
  for (const concurrency of target.name === 'PGlite' ? [1] : concurrencies) {
    const naiveBackend = target.naive();
    await warmUp(naiveBackend, loaded.tasks.at(-1) as DbbenchTask);
    const naive = await pass(naiveBackend, tasks, concurrency);
    await naiveBackend.close();
    // Servers keep their default of 32 sessions: idle connections let a task's next episode start on
    // the connection that already has its table open.
    const backend = createBackendFromUrl(target.url, target.name === 'PGlite' ? { maxSessions: 1 } : {});
    await warmUp(backend, loaded.tasks.at(-1) as DbbenchTask);
    const first = await pass(backend, tasks, concurrency);
    const reopen = await pass(backend, tasks, concurrency);
    const teardown = performance.now();
    await backend.close();
    const teardownSeconds = (performance.now() - teardown) / 1000;
    console.log(row('naive', concurrency, naive));
    console.log(row('reset: first pass', concurrency, first, naive));
    console.log(row('reset: reopen', concurrency, reopen, naive));
    console.log(`${''.padEnd(22)}  (run teardown ${teardownSeconds.toFixed(1)} s; latencies in ms)`);
  }
}
if (targets.length > 0) {
  console.log(
    '\nPGlite serves one episode at a time per engine, and the benchmark uses one: more episodes in flight only queue.',
  );
}
