import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePool } from '../__fixtures__/dbbench-pool.js';
import { renderReport } from '../report/index.js';
import { defaultStudySteps, formatRescueStudy, runRescueStudy } from './rescue-study.js';
import { runTrain } from './train.js';

describe('harness-s rescue-study', () => {
  let dir = '';
  let pool = '';
  let run = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-rescue-study-'));
    pool = join(dir, 'pool');
    await writePool(pool);
    run = join(dir, 'run');
    await runTrain({
      env: 'dbbench',
      method: 'harness-s',
      steps: 2,
      k: 4,
      seed: 1,
      batchSize: 4,
      pool,
      rescue: '2x1',
      evalK: 1,
      concurrency: 4,
      out: run,
      quiet: true,
    });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const flags = () => ({ run, pool, reps: 1, carryOver: 0.5, profileK: 1, concurrency: 4, quiet: true });

  it("replays the run's policy at each step on the same failed groups for every arm", async () => {
    const result = await runRescueStudy({ ...flags(), steps: [0, 2] });
    // Written beside the run, where the report finds it.
    expect(JSON.parse(await readFile(join(run, 'rescue-study.json'), 'utf8'))).toEqual(result);
    // The run's seed is the study's unless --seed says otherwise.
    expect(result).toMatchObject({ env: 'dbbench', k: 4, variants: 2, reps: 1, seed: 1 });
    expect(result.stages.map((stage) => stage.step)).toEqual([0, 2]);
    expect(result.stages.map((stage) => stage.policyVersion)).toEqual(['sim@0', 'sim@2']);
    for (const stage of result.stages) {
      // DBBench ships 35 training tasks; one H0 group each.
      expect(stage.groups).toBe(35);
      expect(stage.allFailed).toBeGreaterThan(0);
      const { arms } = stage;
      for (const arm of Object.values(arms)) {
        expect(arm.rescued).toBeGreaterThanOrEqual(0);
        expect(arm.rescued).toBeLessThanOrEqual(stage.allFailed);
      }
      // With two variants in the pool and m = 2, both routers take the whole pool: the ceiling.
      expect(arms.adaptive.rescued).toBe(arms.ceiling.rescued);
      expect(arms.fixed.rescued).toBe(arms.ceiling.rescued);
      expect(arms.random.rescued).toBeCloseTo(arms.ceiling.rescued, 12);
      expect(stage.adaptiveVsFixed).toMatchObject({ onlyFirst: 0, onlySecond: 0 });
    }
    const table = formatRescueStudy(result);
    expect(table).toMatch(/adaptive 2x1 +fixed 2x1 +adaptive 1x2 +random 2x1 +H0 x2 +any variant/);
    expect(table.split('\n').filter((line) => /^[02] /.test(line))).toHaveLength(2);

    // The run's report shows the study: before training, and the later step, with their failed groups.
    const html = await renderReport(run);
    expect(html).toContain('Rescue study (harness-s)');
    const [before, later] = result.stages;
    expect(html).toMatch(
      new RegExp(`before training</td><td class="num">1</td><td class="num">${before?.allFailed}</td>`),
    );
    expect(html).toMatch(new RegExp(`steps 2</td><td class="num">1</td><td class="num">${later?.allFailed}</td>`));
  });

  it('studies with the similar-failure ranker in both routers when asked, and records its weight', async () => {
    // One variant of two per rescue, so that the ranking decides.
    const study = (failureRanker: boolean, name: string) =>
      runRescueStudy({
        ...flags(),
        steps: [0],
        variants: 1,
        ...(failureRanker ? { failureRanker } : {}),
        out: join(dir, name),
      });
    const plain = await study(false, 'plain.json');
    const result = await study(true, 'with-failures.json');
    expect(result.failureRanker).toBe(2);
    expect(JSON.parse(await readFile(join(dir, 'with-failures.json'), 'utf8')).failureRanker).toBe(2);
    expect(plain.failureRanker).toBeUndefined();
    // The same failed groups (the draws do not depend on the routers), rescued by other choices.
    const [stage] = result.stages;
    const [plainStage] = plain.stages;
    expect(stage?.cases.map(({ taskId, rep }) => `${taskId}#${rep}`)).toEqual(
      plainStage?.cases.map(({ taskId, rep }) => `${taskId}#${rep}`),
    );
    const choices = (cases: Array<{ adaptive: string[] }> = []) => cases.map(({ adaptive }) => adaptive.join());
    expect(choices(stage?.cases)).not.toEqual(choices(plainStage?.cases));
  });

  it("finds the run's pool in its config.json when --pool is not given", async () => {
    const { pool: _given, ...withoutPool } = flags();
    const out = join(dir, 'study-without-pool.json');
    const result = await runRescueStudy({ ...withoutPool, steps: [0], out });
    const withPool = await runRescueStudy({ ...flags(), steps: [0], out: join(dir, 'study-with-pool.json') });
    expect(result.stages).toEqual(withPool.stages);

    // A reproduction's run records no flags: its pool is the reproduction's pools/ENV.
    const root = join(dir, 'reproduction');
    const inReproduction = join(root, 'train', 'dbbench', 'main', 'harness-s', 'seed-1');
    await cp(run, inReproduction, { recursive: true });
    const { flags: _flags, ...config } = JSON.parse(await readFile(join(inReproduction, 'config.json'), 'utf8'));
    await writeFile(join(inReproduction, 'config.json'), JSON.stringify(config));
    await expect(runRescueStudy({ ...withoutPool, run: inReproduction, steps: [0] })).rejects.toThrow(
      "records no pool folder, nor is the run in a reproduction whose pools/dbbench holds one; give the run's pool with --pool DIR",
    );
    await cp(pool, join(root, 'pools', 'dbbench'), { recursive: true });
    await writeFile(join(root, 'pools', 'dbbench', 'index.json'), '{}');
    const reproduced = await runRescueStudy({ ...withoutPool, run: inReproduction, steps: [0] });
    expect(reproduced.stages).toEqual(withPool.stages);
  });

  it('refuses steps the run has no snapshot of, a pool without its variants, and a folder with no run', async () => {
    await expect(runRescueStudy({ ...flags(), steps: [3] })).rejects.toThrow(
      /has no snapshot of step 3 \(it has 0, 1, 2\)/,
    );
    const other = join(dir, 'other-pool');
    await mkdir(other);
    const [kept] = (await readdir(pool)).filter((name) => name.endsWith('.json'));
    await copyFile(join(pool, kept as string), join(other, kept as string));
    await expect(runRescueStudy({ ...flags(), pool: other })).rejects.toThrow(
      /the run's pool had 1 variant\(s\) this one lacks \(v-/,
    );
    await expect(runRescueStudy({ ...flags(), run: pool })).rejects.toThrow(/no training run here \(no config.json\)/);
    const evaluation = join(dir, 'evaluation');
    await mkdir(evaluation);
    await writeFile(join(evaluation, 'config.json'), JSON.stringify({ command: 'eval', env: 'dbbench', k: 3 }));
    await expect(runRescueStudy({ ...flags(), run: evaluation })).rejects.toThrow(
      /evaluation holds a run of 'harness-s eval', not a training run/,
    );
  });

  it('studies the first, middle and last step by default', () => {
    expect(defaultStudySteps([0, 1, 2, 3, 4, 5, 6])).toEqual([0, 3, 6]);
    expect(defaultStudySteps([0, 1])).toEqual([0, 1]);
    expect(defaultStudySteps([0])).toEqual([0]);
    expect(defaultStudySteps([])).toEqual([]);
  });
});
