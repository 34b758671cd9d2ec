import { join, resolve } from 'node:path';
import { ConfigError, writeJsonAtomic } from '@harness-s/core';
import { builtInHarnesses, resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedPolicy } from '@harness-s/policy';
import { AdaptiveRouter, buildProfiles, writeProfiles } from '@harness-s/router';
import { createEnvironment, environmentNames } from '../environments.js';
import { duration } from '../format.js';
import { loadPoolHarnesses } from '../pool.js';
import { createProgress } from '../progress.js';
import type { ResultRecord, Results } from '../reproduce/results.js';
import { ablations, budgetFor, reproduceMethods } from '../reproduce/settings.js';
import { formatReproduceTables } from '../reproduce/tables.js';
import { evaluateOn, h0TopShare, trainOne } from '../reproduce/train-one.js';
import { loadTaskSplits } from '../task-splits.js';
import { runEvolve } from './evolve.js';

export interface ReproduceFlags {
  out?: string;
  quick?: boolean;
  envs?: string[];
  seeds?: number[];
  concurrency: number;
  report?: boolean;
  quiet?: boolean;
}

/** Harness families other than H0 that an environment ships, for cross-harness evaluation. */
const familiesOf = (env: string): string[] => builtInHarnesses(env).filter((name) => !name.startsWith('h0'));

/**
 * `harness-s reproduce`: the whole method on the embedded environments with the simulated policy.
 * Per environment: evolve a sibling pool, anchor behaviour profiles, train every method over
 * several seeds, the router ablations, then evaluate under H0, with Rank-1 routing and under the
 * other harness families; print the tables, write `results.json` and the report.
 */
export async function runReproduce(flags: ReproduceFlags): Promise<ResultRecord[]> {
  const quick = flags.quick ?? false;
  const envs = flags.envs ?? environmentNames();
  for (const env of envs) {
    if (!environmentNames().includes(env))
      throw new ConfigError(`--envs: unknown environment '${env}'`, { code: 'bad-flag' });
  }
  const seeds = flags.seeds ?? [1, 2, 3];
  const root = resolve(
    flags.out ?? join('runs', `reproduce-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`),
  );
  const started = performance.now();
  const log = (line: string) => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };
  await writeJsonAtomic(join(root, 'config.json'), {
    command: 'reproduce',
    envs,
    methods: reproduceMethods,
    ablations,
    seeds,
    quick,
    budgets: Object.fromEntries(envs.map((env) => [env, budgetFor(env, quick)])),
    policy: new SimulatedPolicy().describe(),
    createdAt: new Date().toISOString(),
  });
  const records: ResultRecord[] = [];
  const save = () => writeJsonAtomic(join(root, 'results.json'), { schemaVersion: 1, records } satisfies Results);

  const totalSteps = envs.reduce(
    (sum, env) => sum + budgetFor(env, quick).steps * seeds.length * (reproduceMethods.length + ablations.length),
    0,
  );
  log(
    `Reproducing Harness-S on ${envs.join(', ')} with the simulated policy: ${reproduceMethods.length} methods + ${ablations.length} router ablations x ${seeds.length} seeds${quick ? ' (quick)' : ''}`,
  );
  const progress = flags.quiet ? undefined : createProgress('training', totalSteps);
  let stepsDone = 0;
  const onStep = (label: string) => {
    stepsDone += 1;
    progress?.update(stepsDone, label);
  };

  try {
    for (const env of envs) {
      const budget = budgetFor(env, quick);
      const environment = createEnvironment(env);
      try {
        const splits = await loadTaskSplits(environment);
        const h0 = await resolveHarness(env, 'h0');
        const poolDir = join(root, 'pools', env);
        log(
          `${env}: evolving the sibling pool (${budget.evolveRounds} rounds) on ${splits.train.length + splits.validation.length} development tasks`,
        );
        await runEvolve({
          env,
          rounds: budget.evolveRounds,
          out: poolDir,
          policy: 'sim',
          // Failures on the development tasks (train and validation) show the repair directions;
          // the test tasks stay out of evolution so that evaluations on them are fair.
          subset: 'development',
          k: budget.profileK,
          seed: 0,
          concurrency: flags.concurrency,
          parents: 3,
          directions: 6,
          childrenPerDirection: 2,
          solved: 'majority',
          quiet: true,
        });
        const pool = await loadPoolHarnesses(poolDir, env);
        const initialPolicy = new SimulatedPolicy();
        const initialProfiles = await buildProfiles({
          environment,
          tasks: splits.validation,
          h0,
          pool,
          policy: initialPolicy,
          k: budget.profileK,
          seed: 0,
          concurrency: flags.concurrency,
        });
        await writeProfiles(join(root, 'profiles', env, 'initial'), initialProfiles);
        log(`${env}: pool of ${pool.length} variants; profiles anchored on the initial policy`);

        for (const seed of seeds) {
          const common = {
            root,
            environment,
            splits,
            h0,
            pool,
            budget,
            seed,
            concurrency: flags.concurrency,
            initialProfiles,
            onStep,
          };
          for (const method of reproduceMethods) {
            const { record, policy } = await trainOne({ ...common, method, variant: 'main' });
            const families: NonNullable<ResultRecord['families']> = {};
            for (const family of familiesOf(env)) {
              families[family] = await evaluateOn(
                environment,
                splits.test,
                await resolveHarness(env, family),
                policy,
                budget,
                seed,
                flags.concurrency,
              );
            }
            if (Object.keys(families).length) record.families = families;
            if (method === 'harness-s') {
              const finalProfiles = await buildProfiles({
                environment,
                tasks: splits.validation,
                h0,
                pool,
                policy,
                k: budget.profileK,
                seed: 0,
                concurrency: flags.concurrency,
                step: budget.steps,
              });
              await writeProfiles(join(root, 'profiles', env, `trained-seed-${seed}`), finalProfiles);
              const router = new AdaptiveRouter({ profiles: finalProfiles, mode: 'fixed' });
              const byId = new Map([h0, ...pool].map((harness) => [harness.spec.id, harness]));
              const choices = new Map<string, string>();
              for (const task of splits.test) choices.set(task.id, await router.topChoice(task));
              record.rank1 = await evaluateOn(
                environment,
                splits.test,
                h0,
                policy,
                budget,
                seed,
                flags.concurrency,
                (task) => byId.get(choices.get(task.id) ?? '') ?? h0,
              );
              record.h0TopShare = {
                before: await h0TopShare(initialProfiles, splits.test),
                after: await h0TopShare(finalProfiles, splits.test),
              };
            }
            records.push(record);
            await save();
          }
          for (const variant of ablations) {
            const { record } = await trainOne({ ...common, method: 'harness-s', variant });
            records.push(record);
            await save();
          }
        }
      } finally {
        await environment.close();
      }
    }
  } finally {
    progress?.stop();
  }

  process.stdout.write(
    `\n${formatReproduceTables(records)}\n\nResults: ${join(root, 'results.json')} (${duration(performance.now() - started)})\n`,
  );
  if (flags.report !== false) {
    try {
      const { writeReport } = await import('../report/index.js');
      const path = await writeReport(root);
      process.stdout.write(`Report: ${path}\n`);
    } catch (error) {
      process.stderr.write(`harness-s: the report could not be written: ${(error as Error).message}\n`);
    }
  }
  return records;
}
