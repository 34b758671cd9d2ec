import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalSummary } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { cli } from './__fixtures__/cli.js';
import { smallEvalFlags } from './__fixtures__/dbbench-pool.js';
import { runEval } from './commands/eval.js';
import { runTrain } from './commands/train.js';
import { flagsForResume, flagsToRecord } from './resume.js';

const lines = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n');
const summaryOf = async (dir: string) =>
  EvalSummary.parse(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')));
const stable = ({ durationMs: _d, runId: _r, ...rest }: EvalSummary) => rest;

describe('--resume keeps the settings the run was started with', () => {
  it('eval: a bare --resume continues with the recorded flags, not the defaults, and ends as the whole run did', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'resume-eval-')), 'run');
    // Not the defaults: another environment, k and seed.
    await cli(['eval', '--env', 'appworld', '--k', '2', '--seed', '5', '--limit', '3', '--quiet', '--out', out]);
    const whole = await summaryOf(out);
    expect(whole.env).toBe('appworld');
    const recorded = await lines(join(out, 'trajectories.jsonl'));
    expect(recorded).toHaveLength(6);
    // Killed after two attempts (no summary), which ran an hour apart.
    const [first, second] = recorded.slice(0, 2).map((line) => JSON.parse(line));
    second.timings.startedAt = new Date(Date.parse(first.timings.startedAt) + 3_600_000).toISOString();
    await writeFile(
      join(out, 'trajectories.jsonl'),
      `${[first, second].map((line) => JSON.stringify(line)).join('\n')}\n`,
    );
    await rm(join(out, 'summary.json'));
    await cli(['eval', '--resume', out, '--quiet', '--concurrency', '1']);
    expect(await lines(join(out, 'trajectories.jsonl'))).toHaveLength(6);
    const resumed = await summaryOf(out);
    expect(stable(resumed)).toEqual(stable(whole));
    // The killed session's time (its attempts' span) is kept, and this session's added to it.
    expect(resumed.durationMs).toBeGreaterThan(3_600_000);
    // Resuming a finished run runs nothing and keeps its time.
    await cli(['eval', '--resume', out, '--quiet']);
    expect(await lines(join(out, 'trajectories.jsonl'))).toHaveLength(6);
    const again = await summaryOf(out);
    expect(stable(again)).toEqual(stable(whole));
    expect(again.durationMs).toBeGreaterThanOrEqual(resumed.durationMs);
  });

  it('refuses a flag that would change what the run is, naming it and the recorded value', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'resume-eval-')), 'run');
    const flags = { ...smallEvalFlags, limit: 2 };
    await runEval({ ...flags, out });
    await expect(runEval({ ...flags, k: 3, resume: out }, new Set(['resume', 'k']))).rejects.toThrow(
      /--resume .*: --k 3 \(the run has 1\); a continued run keeps its settings/,
    );
    await expect(cli(['eval', '--resume', out, '--env', 'appworld'])).rejects.toThrow(
      /--env "appworld" \(the run has "dbbench"\)/,
    );
    // How it runs may change.
    await expect(
      runEval({ ...flags, concurrency: 1, resume: out }, new Set(['resume', 'concurrency'])),
    ).resolves.toMatchObject({ env: 'dbbench', k: 1 });
  });

  it('eval: a run that records no flags continues only as the evaluation it recorded', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'resume-eval-')), 'run');
    await cli(['eval', '--env', 'dbbench', '--k', '2', '--limit', '3', '--quiet', '--out', out]);
    const configPath = join(out, 'config.json');
    const { flags: _flags, ...unflagged } = JSON.parse(await readFile(configPath, 'utf8'));
    await writeFile(configPath, JSON.stringify(unflagged));
    const before = await readFile(join(out, 'trajectories.jsonl'), 'utf8');
    // Bare, it would take the defaults: every task of the split at k = 3.
    await expect(cli(['eval', '--resume', out, '--quiet'])).rejects.toThrow(
      /--resume .*run holds another evaluation: k 3 \(the run has 2\), attempts 3 \(the run has 2\), tasks \d+ items \(the run has \["dev-0","dev-1","dev-2"\]\); a continued run keeps its settings/,
    );
    expect(await readFile(join(out, 'trajectories.jsonl'), 'utf8')).toBe(before);
    expect(JSON.parse(await readFile(configPath, 'utf8'))).toEqual(unflagged);
    // Given as it was made, it continues.
    await cli(['eval', '--resume', out, '--k', '2', '--limit', '3', '--quiet']);
    expect(await lines(join(out, 'trajectories.jsonl'))).toHaveLength(6);
    // A bad value the record holds is blamed on the record, not on a flag that was not given.
    const config = JSON.parse(await readFile(configPath, 'utf8'));
    await writeFile(configPath, JSON.stringify({ ...config, flags: { ...config.flags, attempts: 1 } }));
    await expect(cli(['eval', '--resume', out, '--quiet'])).rejects.toThrow(
      /--resume .*run: with the flags its config\.json records: --attempts must be at least --k \(2\), got 1/,
    );
  });

  it('train: a bare --resume continues the recorded run; --steps may extend it', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'resume-train-')), 'run');
    await cli([
      'train',
      '--env',
      'appworld',
      '--method',
      'grpo',
      '--steps',
      '1',
      '--batch-size',
      '2',
      '--k',
      '2',
      '--eval-k',
      '1',
      '--quiet',
      '--out',
      out,
    ]);
    // A resume the loop refuses (the run recorded another base harness) leaves config.json as it was.
    const configPath = join(out, 'config.json');
    const original = await readFile(configPath, 'utf8');
    const tampered = JSON.stringify({ ...JSON.parse(original), h0: 'another-h0' });
    await writeFile(configPath, tampered);
    await expect(cli(['train', '--resume', out, '--steps', '2', '--quiet'])).rejects.toThrow(
      /holds another run: h0 "[^"]+" \(the run has "another-h0"\)/,
    );
    expect(await readFile(configPath, 'utf8')).toBe(tampered);
    await writeFile(configPath, original);
    // A setting the run took by default may be given as it is, not changed.
    await expect(cli(['train', '--resume', out, '--steps', '2', '--zero-variance', 'drop', '--quiet'])).rejects.toThrow(
      /holds another run: config\.advantage \{"std":"population","epsilon":0\.000001,"zeroVariance":"drop"\} \(the run has \{.*"zeroVariance":"keep"\}\)/,
    );
    expect(await readFile(configPath, 'utf8')).toBe(original);
    await cli(['train', '--resume', out, '--steps', '2', '--zero-variance', 'keep', '--quiet']);
    const metrics = await lines(join(out, 'metrics.jsonl'));
    expect(metrics.map((line) => JSON.parse(line).step)).toEqual([1, 2]);
    // The extension lasts: a later bare --resume finds a finished 2-step run, not a 1-step one.
    await cli(['train', '--resume', out, '--quiet']);
    expect(JSON.parse(await readFile(join(out, 'summary.json'), 'utf8')).steps).toBe(2);
    await expect(cli(['train', '--resume', out, '--steps', '1'])).rejects.toThrow(
      /--steps 1: the run in .* has trained 2 steps already/,
    );
    // Two tasks of AppWorld per step, two attempts each: nothing of DBBench's defaults (8 x 8).
    const trajectories = (await lines(join(out, 'trajectories.jsonl'))).map((line) => JSON.parse(line));
    expect(trajectories.filter((trajectory) => trajectory.training).length).toBe(8);
    expect(new Set(trajectories.map((trajectory) => trajectory.env))).toEqual(new Set(['appworld']));
    await expect(
      runTrain(
        {
          env: 'appworld',
          method: 'harness-s',
          steps: 2,
          k: 2,
          batchSize: 2,
          seed: 0,
          evalK: 1,
          concurrency: 1,
          resume: out,
        },
        new Set(['resume', 'method']),
      ),
    ).rejects.toThrow(/--method "harness-s" \(the run has "grpo"\)/);
  });

  it('refuses to continue a training run that records no train flags, saying what made it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'resume-unflagged-'));
    await writeFile(join(dir, 'config.json'), JSON.stringify({ command: 'train', env: 'dbbench', variant: 'main' }));
    await expect(flagsForResume(dir, { steps: 3 }, new Set(['steps']), ['steps'])).rejects.toThrow(
      `--resume: ${dir} records no train flags: it was made by \`harness-s reproduce\`, not by \`harness-s train\``,
    );
    await writeFile(join(dir, 'config.json'), JSON.stringify({ command: 'train', env: 'dbbench' }));
    await expect(flagsForResume(dir, { steps: 3 }, new Set(['steps']), ['steps'])).rejects.toThrow(
      /made by a program \(the library\)/,
    );
    // An evaluation recorded without flags continues with them as given.
    await writeFile(join(dir, 'config.json'), JSON.stringify({ command: 'eval' }));
    await expect(flagsForResume(dir, { k: 2 }, new Set(['k']), [])).resolves.toEqual({ k: 2 });
  });

  it('records paths absolute, so a run continues from another folder, and compares given paths the same way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'resume-paths-'));
    const recorded = flagsToRecord({ data: 'tasks.jsonl', k: 2, out: 'runs/x', quiet: true, model: undefined });
    expect(recorded).toEqual({ data: join(process.cwd(), 'tasks.jsonl'), k: 2 });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ flags: recorded }));
    const given = { data: './tasks.jsonl', k: 2, concurrency: 8, resume: dir };
    await expect(
      flagsForResume(dir, given, new Set(['data', 'concurrency', 'resume']), ['concurrency']),
    ).resolves.toEqual({
      ...recorded,
      concurrency: 8,
      resume: dir,
    });
    await expect(flagsForResume(dir, { data: 'other.jsonl', resume: dir }, new Set(['data']), [])).rejects.toThrow(
      /--data ".*other\.jsonl" \(the run has ".*tasks\.jsonl"\)/,
    );
  });

  it('keeps no password: a URL recorded without it must be given again, and a spec file is recorded by its path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'resume-secret-'));
    const recorded = flagsToRecord({
      db: 'postgres://me:secret@db.example:5432/runs',
      harness: 'specs/mine.json',
      k: 1,
    });
    expect(recorded).toEqual({
      db: 'postgres://me:***@db.example:5432/runs',
      harness: join(process.cwd(), 'specs', 'mine.json'),
      k: 1,
    });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ flags: recorded }));
    await expect(flagsForResume(dir, { resume: dir }, new Set(['resume']), ['db'])).rejects.toThrow(
      /--db postgres:\/\/me:\*\*\*@db\.example:5432\/runs: the run does not keep passwords; give it again/,
    );
    const given = { db: 'postgres://me:secret@db.example:5432/runs', resume: dir };
    await expect(flagsForResume(dir, given, new Set(['resume', 'db']), ['db'])).resolves.toMatchObject({
      db: 'postgres://me:secret@db.example:5432/runs',
      harness: join(process.cwd(), 'specs', 'mine.json'),
    });
    // Flags the record does not know keep the command line's defaults.
    await expect(
      flagsForResume(dir, { ...given, concurrency: 4 }, new Set(['resume', 'db']), ['db']),
    ).resolves.toMatchObject({
      concurrency: 4,
    });
  });
});

describe('the run folder, checked before any work', () => {
  it('a new run never writes into another run, a pool or a file; --resume needs a run of its own command', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'run-folder-'));
    const evalFlags = smallEvalFlags;
    const run = join(dir, 'eval');
    await runEval({ ...evalFlags, out: run });
    const before = await readFile(join(run, 'config.json'), 'utf8');
    await expect(runEval({ ...evalFlags, k: 2, out: run })).rejects.toThrow(
      `--out: ${run} already holds a run; a new run needs a new or empty folder, and --resume ${run} continues that one`,
    );
    expect(await readFile(join(run, 'config.json'), 'utf8')).toBe(before);
    const pool = join(dir, 'pool');
    await mkdir(pool);
    await writeFile(join(pool, 'index.json'), '{}');
    await expect(runEval({ ...evalFlags, out: pool })).rejects.toThrow(/--out: .*pool already holds a pool;/);
    await writeFile(join(dir, 'notes.md'), 'x');
    await expect(runEval({ ...evalFlags, out: join(dir, 'notes.md') })).rejects.toThrow(
      /notes\.md is a file, not a folder/,
    );
    // An empty folder is a new run's.
    await mkdir(join(dir, 'empty'));
    await runEval({ ...evalFlags, out: join(dir, 'empty') });

    const train = {
      env: 'dbbench',
      method: 'harness-s',
      steps: 1,
      k: 2,
      batchSize: 2,
      seed: 0,
      evalK: 1,
      concurrency: 2,
    };
    await expect(runTrain({ ...train, resume: join(dir, 'nope') })).rejects.toThrow(
      `--resume: no such folder ${join(dir, 'nope')}`,
    );
    await expect(runTrain({ ...train, resume: run })).rejects.toThrow(
      `--resume: ${run} holds a run of 'harness-s eval', not of 'harness-s train'`,
    );
    await expect(runEval({ ...evalFlags, resume: pool })).rejects.toThrow(/pool holds no run \(no config.json\)/);
    // A run's folder given as a pool.
    await expect(runTrain({ ...train, pool: run, out: join(dir, 'train') })).rejects.toThrow(
      `--pool: ${run} is a run's folder, not a pool (a folder of variant files, as evolve writes)`,
    );
    // A profiles folder given as a pool.
    const profiles = join(dir, 'profiles');
    await mkdir(profiles);
    await writeFile(join(profiles, 'profiles.json'), '{}');
    await expect(runTrain({ ...train, pool: profiles, out: join(dir, 'train') })).rejects.toThrow(
      `--pool: ${profiles} holds behaviour profiles (profiles.json), not a pool; they go to --profiles`,
    );
  });
});
