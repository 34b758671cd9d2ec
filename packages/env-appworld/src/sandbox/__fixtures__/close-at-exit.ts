// A program that runs an oracle episode of the environment (its code runs in the shared sandbox
// worker pool) and awaits the pool's close as its last top-level statement: it must print and end
// with code 0, not 13 (a top-level await left pending).
import { rightPath } from '@harness-s/core';
import { createAppWorldEnvironment } from '../../environment.js';
import { sharedWorkerPool } from '../worker-pool.js';

const environment = createAppWorldEnvironment();
const { tasks } = await environment.loadTasks({ split: 'dev' });
for (const task of tasks.slice(0, 2)) {
  const episode = await environment.open(task);
  for (const action of rightPath(environment.oraclePlan(task).nodes)) if ((await episode.step(action)).done) break;
  await episode.evaluate();
  await episode.close();
}
await environment.close();
await sharedWorkerPool.close();
console.log('closed');
