/**
 * Episode throughput of env-dbbench on the embedded engine: open (fresh table), the oracle's
 * actions, evaluate, close, over every loadable dev task, repeated. Prints per-phase latency and
 * episodes per second.
 */
import { rightPath } from '@harness-s/core';
import { createDbbenchEnvironment } from '../src/environment.js';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

const environment = createDbbenchEnvironment();
const { tasks } = await environment.loadTasks({ split: 'dev' });
const startup = performance.now();
await (await environment.open(tasks[0] ?? (undefined as never))).close();
const startupMs = performance.now() - startup;

const phases: Record<'open' | 'oracle' | 'evaluate' | 'close', number[]> = { open: [], oracle: [], evaluate: [], close: [] };
const wall = performance.now();
let episodes = 0;
for (let round = 0; round < rounds; round += 1) {
  for (const task of tasks) {
    let mark = performance.now();
    const episode = await environment.open(task);
    phases.open.push(performance.now() - mark);
    mark = performance.now();
    for (const action of rightPath(environment.oraclePlan(task).nodes)) if ((await episode.step(action)).done) break;
    phases.oracle.push(performance.now() - mark);
    mark = performance.now();
    const evaluation = await episode.evaluate();
    phases.evaluate.push(performance.now() - mark);
    mark = performance.now();
    await episode.close();
    phases.close.push(performance.now() - mark);
    if (!evaluation.success) throw new Error(`oracle failed on ${task.id}`);
    episodes += 1;
  }
}
const seconds = (performance.now() - wall) / 1000;
await environment.close();

console.log(`env-dbbench on PGlite: ${episodes} episodes (${tasks.length} dev tasks x ${rounds}); engine start ${startupMs.toFixed(0)} ms`);
console.log('phase      mean ms   p50 ms   p95 ms   per second');
for (const [name, values] of Object.entries(phases)) {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(
    `${name.padEnd(9)} ${mean.toFixed(2).padStart(8)} ${percentile(values, 0.5).toFixed(2).padStart(8)} ${percentile(values, 0.95).toFixed(2).padStart(8)} ${(1000 / mean).toFixed(0).padStart(12)}`,
  );
}
console.log(`whole episodes: ${(episodes / seconds).toFixed(1)} per second`);
