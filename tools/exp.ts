import { deriveSeed, train } from '@harness-s/core';
import { createDbbenchEnvironment, dbbenchSkills } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0 } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';

const env = createDbbenchEnvironment();
const { tasks } = await env.loadTasks({ split: 'dev' });
const train_ = tasks.filter((t) => deriveSeed('split', t.id) % 3 !== 0);
const test = tasks.filter((t) => deriveSeed('split', t.id) % 3 === 0);
const h0 = createHarness(dbbenchH0());
const pool = dbbenchSkills.map((skill) => {
  const spec = dbbenchH0();
  spec.id = `v-${skill.name}`;
  spec.parent = 'h0';
  spec.direction = skill.name;
  spec.prompt.directives.push({ id: skill.name, text: `Always ${skill.description}.`, direction: skill.name, skill: skill.name });
  return createHarness(spec);
});
const methods = (process.argv[2] ?? 'grpo,h0-resample,mixture,harness-s').split(',');
for (const seed of (process.env.SEEDS ?? '1,2,3').split(',').map(Number)) {
  for (const method of methods) {
    const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy(JSON.parse(process.env.SIM ?? '{}')), { learningRate: Number(process.env.LR ?? 1) });
    const s = await train({
      config: { method: method as never, steps: Number(process.env.STEPS ?? 12), batchSize: 8, k: 8, seed, concurrency: 4, rescueContext: (process.env.CTX ?? 'variant') as never },
      environment: env, tasks: { train: train_, test }, h0, pool, trainer, dir: `/tmp/exp/${method}-${seed}-${Date.now()}`,
    });
    console.log(seed, method.padEnd(12), 'init', s.initialEvalUnderH0?.avgAtK.toFixed(3), 'final P3', s.evalUnderH0.passAtK.toFixed(3), 'A3', s.evalUnderH0.avgAtK.toFixed(3), 'EGR', s.effectiveGroupRate.toFixed(3), 'ETS', s.effectiveTokenShare.toFixed(3), 'trig', s.rescueTriggerRate.toFixed(3), 'resc', s.rescueSuccessRate.toFixed(3), Math.round(s.durationMs/1000)+'s');
  }
}
await env.close();
