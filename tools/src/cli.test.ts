import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalSummary, readTrajectories } from '@harness-s/core';
import { CommanderError } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { writePool } from './__fixtures__/dbbench-pool.js';
import { runCleanup } from './commands/cleanup.js';
import { formatSummary, runEval } from './commands/eval.js';
import { runReplay } from './commands/replay.js';
import { runTrain } from './commands/train.js';
import { runWorker } from './commands/worker.js';
import { createEnvironment } from './environments.js';
import { createProgram } from './program.js';

/** Parses arguments in process; returns the error text commander would print. */
async function parseError(args: string[]): Promise<string> {
  let output = '';
  const program = createProgram();
  program.exitOverride().configureOutput({ writeErr: (text) => (output += text), writeOut: () => undefined });
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeErr: (text) => (output += text), writeOut: () => undefined });
  }
  await expect(program.parseAsync(['node', 'harness-s', ...args])).rejects.toBeInstanceOf(CommanderError);
  return output;
}

const base = { env: 'dbbench', split: 'dev', harness: 'h0', k: 1, seed: 0, concurrency: 2, quiet: true };

describe('harness-s flags', () => {
  it('names the bad flag and value', async () => {
    expect(await parseError(['eval', '--k', '0'])).toMatch(/--k must be an integer >= 1, got '0'/);
    expect(await parseError(['eval', '--env', 'chess'])).toMatch(/'chess' is invalid.*dbbench/s);
    expect(await parseError(['eval', '--policy', 'gpt5'])).toMatch(/'gpt5' is invalid.*sim, oracle, empty, openai/s);
    expect(await parseError(['eval', '--frobnicate'])).toMatch(/unknown option '--frobnicate'/);
    expect(await parseError(['replay', '--task', 'dev-0'])).toMatch(/required option '--actions <file>' not specified/);
    expect(await parseError(['train', '--carry-over', '1.5'])).toMatch(/--carry-over must be in \[0, 1\], got '1.5'/);
    expect(await parseError(['train', '--carry-over', 'half'])).toMatch(/--carry-over must be a number, got 'half'/);
    expect(await parseError(['eval', '--temperature', '-1'])).toMatch(/--temperature must be at least 0, got '-1'/);
    expect(await parseError(['rescue-study', 'run', '--pool', 'p', '--steps', '0,,6'])).toMatch(
      /--steps must be a comma-separated list of integers >= 0 \(e\.g\. 0,6,12\), got '0,,6' \(an empty item\)/,
    );
    expect(await parseError(['rescue-study', 'run', '--pool', 'p', '--steps', 'abc'])).toMatch(/got 'abc' \('abc'\)/);
    expect(await parseError(['reproduce', '--study-steps', '0,-1'])).toMatch(/--study-steps .* got '0,-1' \('-1'\)/);
    expect(await parseError(['reproduce', '--seeds', '1', 'abc'])).toMatch(
      /option '--seeds <n\.\.\.>' argument 'abc' is invalid\. --seeds must be an integer >= 0, got 'abc'/,
    );
  });

  it('prints its version', async () => {
    let printed = '';
    const program = createProgram();
    program.exitOverride().configureOutput({ writeOut: (text) => (printed += text) });
    await expect(program.parseAsync(['node', 'harness-s', '--version'])).rejects.toBeInstanceOf(CommanderError);
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(printed.trim()).toBe(manifest.version);
  });

  it('refuses an openai policy without an endpoint, and unknown task ids', async () => {
    await expect(runEval({ ...base, policy: 'openai' })).rejects.toThrow(/--policy openai needs --base-url/);
    await expect(runEval({ ...base, policy: 'oracle', tasks: ['dev-999'] })).rejects.toThrow(
      /--tasks: no task dev-999/,
    );
  });

  it('refuses a bad --rescue shape and a method without its pool before any work', async () => {
    const train = { ...base, method: 'grpo', k: 2, steps: 1, batchSize: 1, evalK: 1, quiet: false };
    const written = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await expect(runTrain({ ...train, rescue: '8y1' })).rejects.toThrow(/--rescue must look like 8x1/);
      await expect(runTrain({ ...train, rescue: '9x0' })).rejects.toThrow(/each at least 1\), got '9x0'/);
      // A flag the method would ignore.
      await expect(runTrain({ ...train, profileTasks: 3 })).rejects.toThrow(
        '--profile-tasks: only for --method harness-s; --method is grpo, which would ignore it',
      );
      for (const rescue of ['4x2', '4X2', '4×2'])
        await expect(runTrain({ ...train, rescue })).rejects.toThrow(
          /--rescue: only for --method harness-s or h0-resample/,
        );
      await expect(runTrain({ ...train, method: 'h0-resample', mixtureSize: 2 })).rejects.toThrow(
        /--mixture-size: only for --method mixture/,
      );
      await expect(runTrain({ ...train, method: 'harness-s' })).rejects.toThrow(/harness-s needs a sibling pool/);
      await expect(runTrain({ ...train, method: 'mixture' })).rejects.toThrow(/mixture needs a sibling pool/);
      const pool = join(await mkdtemp(join(tmpdir(), 'mixture-pool-')), 'pool');
      await writePool(pool);
      await expect(runTrain({ ...train, method: 'mixture', pool, mixtureSize: 5 })).rejects.toThrow(
        `--mixture-size 5: the pool ${pool} has 2 variants; give at most 2`,
      );
      // Not a line of training: no tasks loaded, nothing started.
      expect(written).not.toHaveBeenCalled();
      // A group of one attempt is allowed (a smoke run), with a warning that it cannot learn.
      await expect(runTrain({ ...train, method: 'harness-s', k: 1 })).rejects.toThrow(/needs a sibling pool/);
      expect(written).toHaveBeenCalledTimes(1);
      expect(String(written.mock.calls[0]?.[0])).toMatch(/^warning: --k 1: .* GRPO learns nothing from it/);
    } finally {
      written.mockRestore();
    }
  });

  it("refuses to run a model's commands in SWE-Gym's local sandbox, before any work", async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'unconfined-')), 'run');
    const model = { policy: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' };
    await expect(runEval({ ...base, ...model, env: 'swegym', sandbox: 'local', out })).rejects.toThrow(
      /swegym: --sandbox local runs every command on this machine, unconfined, and this policy writes its own commands; use --sandbox docker/,
    );
    await expect(readFile(join(out, 'config.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(
      runReplay({ env: 'swegym', task: 'embedded__roman-1', actions: '[]', sandbox: 'local' }, () => undefined),
    ).rejects.toThrow(/--sandbox local runs every command on this machine/);
    // A worker runs whatever policy its jobs name: refused before it connects to the queue.
    const worker = { redis: 'redis://127.0.0.1:1', env: 'swegym', sandbox: 'local', concurrency: 1, quiet: true };
    const timing = { lockDuration: 30_000, stalledInterval: 30_000, maxStalled: 1, grace: 0, heartbeat: 0 };
    await expect(runWorker({ ...worker, ...timing })).rejects.toThrow(/--sandbox local runs every command/);
  });
});

describe('harness-s eval and replay', () => {
  it('prints what the environment added to the summary in its own words, or names it', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-swegym-')), 'run');
    let printed = '';
    const written = vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      printed += String(text);
      return true;
    });
    let summary: EvalSummary;
    try {
      summary = await runEval({ ...base, env: 'swegym', policy: 'oracle', tasks: ['embedded__dotenv-lite-1'], out });
    } finally {
      written.mockRestore();
    }
    expect(printed).toMatch(
      /SWE-bench: 1 of 1 predictions resolved \| 1 completed, 1 submitted, 0 empty patches, 0 errors \(summary\.json: swebench\)/,
    );
    // An environment that adds keys without lines of its own: eval names them.
    const extended = { ...summary, goals: { met: 1 } } as EvalSummary;
    expect(formatSummary(extended, {})).toMatch(/swegym metrics in summary\.json: swebench, goals/);
    expect(formatSummary(EvalSummary.parse(summary), {})).not.toMatch(/metrics in summary\.json/);
    // The header names a trained policy by its version, an untrained one by its name.
    const trained = { ...summary, policy: 'sim', policyVersion: 'sim@12' } as EvalSummary;
    expect(formatSummary(trained, {})).toMatch(/\| policy sim@12 \|/);
    expect(formatSummary({ ...trained, policyVersion: 'sim@0' }, {})).toMatch(/\| policy sim \|/);
    // An oracle that leaves a task unsolved, or nothing done that passes one, is said by name.
    const oracle = { ...summary, policy: 'oracle', policyVersion: 'oracle', unsolved: ['t-2', 't-9'] } as EvalSummary;
    expect(formatSummary(oracle, {})).toMatch(/\nthe oracle did not solve t-2, t-9: an environment's oracle plan must/);
    expect(formatSummary({ ...oracle, unsolved: [] }, {})).not.toMatch(/did not solve/);
    const empty = { ...summary, policy: 'empty', policyVersion: 'empty' } as EvalSummary;
    const solved = empty.perTask.filter((task) => task.successes > 0).map((task) => task.id);
    expect(solved.length).toBeGreaterThan(0);
    expect(formatSummary(empty, {})).toContain(`the empty policy solved ${solved.join(', ')}: an environment's`);
    expect(formatSummary({ ...empty, policy: 'sim' }, {})).not.toMatch(/empty policy solved/);
  });

  it('writes a run folder a reader can replay, with every summary key scripts rely on', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'eval-')), 'run');
    const summary = await runEval({
      ...base,
      policy: 'sim',
      k: 3,
      seed: 5,
      tasks: ['dev-0', 'dev-5', 'dev-20', 'dev-41'],
      out,
    });
    expect(EvalSummary.safeParse(summary).success).toBe(true);
    const written = JSON.parse(await readFile(join(out, 'summary.json'), 'utf8'));
    for (const key of [
      'env',
      'split',
      'policy',
      'harness',
      'k',
      'tasks',
      'solved',
      'passAtK',
      'avgAtK',
      'unloadable',
      'infraErrors',
      'perTask',
    ]) {
      expect(written).toHaveProperty(key);
    }
    expect(written).toMatchObject({ env: 'dbbench', split: 'dev', policy: 'sim', harness: 'h0', k: 3, tasks: 3 });
    expect(written.unloadable).toEqual([
      { id: 'dev-5', reason: "column 1 of table 'historic_sites' has an empty name" },
    ]);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(config.harness.id).toBe('h0');
    expect(config.policy.theta).toBeDefined();

    // A limit that leaves tasks out runs the first N and reports none of the split's unloadable tasks.
    const limited = await runEval({ ...base, policy: 'sim', k: 1, seed: 5, limit: 2, out: `${out}-limited` });
    expect([limited.tasks, limited.unloadable]).toEqual([2, []]);
    // One that --tasks named is still said.
    const named = await runEval({
      ...base,
      policy: 'sim',
      k: 1,
      seed: 5,
      tasks: ['dev-5', 'dev-6', 'dev-7'],
      limit: 1,
      out: `${out}-named`,
    });
    expect([named.tasks, named.unloadable.map((task) => task.id)]).toEqual([1, ['dev-5']]);

    // Same seed, same numbers.
    const again = await runEval({
      ...base,
      policy: 'sim',
      k: 3,
      seed: 5,
      tasks: ['dev-0', 'dev-20', 'dev-41'],
      out: `${out}-again`,
    });
    expect([again.passAtK, again.avgAtK, again.perTask]).toEqual([summary.passAtK, summary.avgAtK, summary.perTask]);

    // Replaying each recorded attempt reproduces its evaluation.
    const trajectories = await readTrajectories(out);
    expect(trajectories).toHaveLength(9);
    const environment = createEnvironment('dbbench');
    try {
      for (const trajectory of trajectories) {
        const replayed = await runReplay(
          { env: 'dbbench', task: trajectory.taskId, actions: out, attempt: trajectory.attempt },
          () => undefined,
          environment,
        );
        expect(replayed.evaluation.success).toBe(trajectory.evaluation?.success);
      }
    } finally {
      await environment.close();
    }
  });

  it('replays a hand-written action list and prints each observation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replay-'));
    const actions = join(dir, 'actions.json');
    await writeFile(
      actions,
      JSON.stringify([
        { tool: 'execute_sql', arguments: { query: 'SELECT COUNT(*) FROM "Music Chart History"' } },
        { tool: 'commit_final_answer', arguments: { answers: ['7'] } },
      ]),
    );
    const lines: string[] = [];
    const { evaluation } = await runReplay({ env: 'dbbench', task: 'dev-2', actions }, (line) => lines.push(line));
    expect(lines.join('\n')).toContain('=> [(35,)]');
    expect(evaluation.success).toBe(true);
    expect(lines).toContain('\nEvaluation: SUCCESS (reward 1)');

    await writeFile(actions, JSON.stringify([{ tool: 42 }]));
    await expect(runReplay({ env: 'dbbench', task: 'dev-2', actions }, () => undefined)).rejects.toThrow(
      /actions\.json: 0\.tool/,
    );
  });

  it('reports a task file that is not AgentBench JSONL, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'data-'));
    const data = join(dir, 'tasks.jsonl');
    await writeFile(data, 'hello\nworld\n');
    await expect(runEval({ ...base, policy: 'oracle', data })).rejects.toThrow(/tasks\.jsonl: no line is JSON/);
  });
});

describe('--db and harness-s cleanup', () => {
  it('names a bad --db URL, and a server that is not there, in one line', async () => {
    expect(await parseError(['eval', '--db'])).toMatch(/option '--db <url>' argument missing/);
    await expect(runEval({ ...base, policy: 'oracle', db: 'sqlite:///x.db' })).rejects.toThrow(
      /--db: unknown database scheme 'sqlite:'/,
    );
    await expect(
      runEval({ ...base, policy: 'oracle', db: 'postgres://postgres:secret@127.0.0.1:1/test' }),
    ).rejects.toThrow(/^cannot reach postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: connection refused$/);
  });

  it('replays on the database --db names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replay-db-'));
    const actions = join(dir, 'actions.json');
    await writeFile(
      actions,
      JSON.stringify([{ tool: 'execute_sql', arguments: { query: 'SELECT COUNT(*) FROM "Music Chart History"' } }]),
    );
    const lines: string[] = [];
    await runReplay({ env: 'dbbench', task: 'dev-2', actions, db: 'pglite:' }, (line) => lines.push(line));
    expect(lines.join('\n')).toContain('=> [(35,)]');
    await expect(
      runReplay({ env: 'dbbench', task: 'dev-2', actions, db: 'mysql://root@127.0.0.1:1/test' }, () => undefined),
    ).rejects.toThrow(/cannot reach mysql:\/\/root@127\.0\.0\.1:1\/test/);
  });

  it('cleanup needs an environment it knows and, for dbbench, a server', async () => {
    // Without --env: every environment with a cleanup, skipping one that lacks its flag, saying why.
    const printed: string[] = [];
    const lines = await runCleanup({ db: 'pglite:' }, (line) => printed.push(line));
    expect(lines[0]).toBe('dbbench: nothing to clean');
    expect(lines.slice(1).every((line) => line.startsWith('swegym: '))).toBe(true);
    expect(printed).toEqual(lines);
    expect((await runCleanup({}, () => undefined))[0]).toMatch(
      /^dbbench: skipped: cleanup --env dbbench needs --db URL/,
    );
    await expect(runCleanup({ env: 'chess' }, () => undefined)).rejects.toThrow(
      /unknown --env 'chess'; available: .*dbbench/,
    );
    await expect(runCleanup({ env: 'dbbench' }, () => undefined)).rejects.toThrow(/needs --db URL/);
    await expect(
      runCleanup({ env: 'dbbench', db: 'postgres://postgres@127.0.0.1:1/test' }, () => undefined),
    ).rejects.toThrow(/cannot reach/);
    expect(await runCleanup({ env: 'dbbench', db: 'pglite:' }, () => undefined)).toEqual(['nothing to clean']);
  });

  it('swegym cleanup without a Docker daemon says what it could not look at, not that nothing was left', async () => {
    const saved = process.env['DOCKER_HOST'];
    process.env['DOCKER_HOST'] = 'unix:///nonexistent/harness-s-docker.sock';
    try {
      const lines = await runCleanup({ env: 'swegym' }, () => undefined);
      expect(lines[0]).toBe('docker is not reachable: no containers looked for');
      expect(lines).not.toContain('nothing to clean');
      expect(lines.at(-1)).toMatch(/^(no local sandbox directories to clean|removed \d+ local sandbox directories)$/);
    } finally {
      if (saved === undefined) delete process.env['DOCKER_HOST'];
      else process.env['DOCKER_HOST'] = saved;
    }
  });
});
