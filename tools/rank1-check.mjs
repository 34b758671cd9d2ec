import { readFileSync } from 'node:fs';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { AdaptiveRouter, buildProfiles } from '@harness-s/router';
import { createEnvironment } from './dist/environments.js';
import { loadPoolHarnesses } from './dist/pool.js';
import { evaluateOn, h0TopShare } from './dist/reproduce/train-one.js';
import { loadTaskSplits } from './dist/task-splits.js';

const [env, poolDir, ...runs] = process.argv.slice(2);
const environment = createEnvironment(env);
const splits = await loadTaskSplits(environment);
const h0 = await resolveHarness(env, 'h0');
const pool = await loadPoolHarnesses(poolDir, env);
const budget = { evalK: 3 };
const initial = await buildProfiles({ environment, tasks: splits.validation, h0, pool, policy: new SimulatedPolicy(), k: 2, seed: 0, concurrency: 4 });
for (const run of runs) {
  const checkpoint = JSON.parse(readFileSync(`${run}/checkpoints/latest.json`, 'utf8'));
  const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy());
  trainer.restore(checkpoint.trainer);
  const policy = trainer.policy;
  const seed = JSON.parse(readFileSync(`${run}/summary.json`, 'utf8')).seed;
  const final = await buildProfiles({ environment, tasks: splits.validation, h0, pool, policy, k: 2, seed: 0, concurrency: 4, step: 12 });
  const router = new AdaptiveRouter({ profiles: final, mode: 'fixed' });
  const byId = new Map([h0, ...pool].map((h) => [h.spec.id, h]));
  const choices = new Map();
  for (const task of splits.test) choices.set(task.id, await router.topChoice(task));
  const rank1 = await evaluateOn(environment, splits.test, h0, policy, budget, seed, 4, (task) => byId.get(choices.get(task.id)) ?? h0);
  const plain = await evaluateOn(environment, splits.test, h0, policy, budget, seed, 4);
  const before = await h0TopShare(initial, splits.test);
  const after = await h0TopShare(final, splits.test);
  console.log(run, 'H0', (plain.avgAtK * 100).toFixed(1), (plain.passAtK * 100).toFixed(1), 'rank1', (rank1.avgAtK * 100).toFixed(1), (rank1.passAtK * 100).toFixed(1), 'h0 top', (before * 100).toFixed(1), '->', (after * 100).toFixed(1), 'choices', [...choices.values()].filter((c) => c !== 'h0').length);
}
await environment.close();
