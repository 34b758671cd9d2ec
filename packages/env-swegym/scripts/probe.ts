import { rightPath } from '@harness-s/core';
import { createSwegymEnvironment } from '@harness-s/env-swegym';

const kind = (process.argv[2] ?? 'local') as 'local' | 'docker';
const env = createSwegymEnvironment({ sandbox: kind });
const { tasks, unloadable } = await env.loadTasks({ split: 'all' });
console.log('tasks', tasks.length, 'unloadable', unloadable);
for (const task of tasks) {
  const t0 = performance.now();
  const run = async (plan: ReturnType<typeof env.oraclePlan>) => {
    const episode = await env.open(task);
    try {
      for (const action of rightPath(plan.nodes)) {
        const r = await episode.step(action);
        if (r.error && action.tool === 'bash') console.log('  step error', task.id, r.error, r.observation.slice(0, 300));
        if (r.done) break;
      }
      return await episode.evaluate();
    } finally {
      await episode.close();
    }
  };
  const oracle = await run(env.oraclePlan(task));
  const empty = await run(env.emptyPlan(task));
  console.log(task.id, 'oracle', oracle.details['resolution'], 'empty', empty.details['resolution'], `${Math.round(performance.now() - t0)} ms`);
  if (!oracle.success) console.log(JSON.stringify(oracle, null, 1).slice(0, 3000));
}
await env.close();
