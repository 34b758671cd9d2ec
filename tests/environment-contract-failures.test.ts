import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPlainHarness } from '@harness-s/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';

// The contract suite run against environments that break it (src/fixtures/broken-environments.ts),
// in a vitest of its own: which checks fail, and what their failures say.
const root = fileURLToPath(new URL('..', import.meta.url));
const config = join(root, 'tests/src/fixtures/broken-environments.vitest.config.ts');

interface Outcome {
  /** Each check's status by `environment > check`. */
  statuses: Map<string, string>;
  /** What vitest printed about the failures: blocks of `FAIL` headers, the error and its diff. */
  blocks: string[];
}

async function runBrokenEnvironments(): Promise<Outcome> {
  const directory = await mkdtemp(join(tmpdir(), 'contract-failures-'));
  try {
    const report = join(directory, 'report.json');
    const variables = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'FORCE_COLOR'),
    );
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          join(root, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--config',
          config,
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${report}`,
        ],
        { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...variables, NO_COLOR: '1', CI: '1' } },
      );
      let printed = '';
      child.stdout.on('data', (chunk) => {
        printed += chunk;
      });
      child.stderr.on('data', (chunk) => {
        printed += chunk;
      });
      child.on('error', reject);
      child.on('exit', () => resolve(printed));
    });
    const json = JSON.parse(await readFile(report, 'utf8')) as {
      testResults: Array<{ assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }> }>;
    };
    const statuses = new Map<string, string>();
    for (const file of json.testResults)
      for (const result of file.assertionResults)
        statuses.set(
          `${(result.ancestorTitles.at(-1) ?? '').replace('environment contract: ', '')} > ${result.title}`,
          result.status,
        );
    return { statuses, blocks: stdout.split(/⎯{3,}.*\n/) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const check = {
  loads: 'loads tasks with unique ids that belong to the environment',
  oracle:
    'solves every task by its oracle plan, and no task by doing nothing or by its empty plan; both plans end the episode',
  wrongPaths: 'ends the episode on wrong paths through the oracle plan: every decision wrong, and each wrong in turn',
  concurrent: 'keeps concurrent episodes of one task apart',
  badArguments: 'answers an unknown tool and bad arguments with observations, not crashes',
};

describe('the environment contract, run against environments that break it', () => {
  let outcome: Outcome;
  beforeAll(async () => {
    outcome = await runBrokenEnvironments();
  }, 60_000);

  const failed = (environment: string) =>
    [...outcome.statuses].filter(([name, status]) => name.startsWith(`${environment} > `) && status === 'failed');
  /** What vitest printed about one check's failure. */
  const failure = (environment: string, name: string): string =>
    outcome.blocks.find((block) => block.includes(`environment contract: ${environment} > ${name}`)) ?? '';

  it('fails once when no task loads, naming the source and every unloadable record', () => {
    expect(failed('no task loads').map(([name]) => name)).toEqual([`no task loads > ${check.loads}`]);
    expect(failure('no task loads', check.loads)).toContain(
      "Error: no task loaded from split 'dev'; 2 unloadable: count-1: target is not a number; count-2: no instruction",
    );
    const skipped = [...outcome.statuses].filter(
      ([name, status]) => name.startsWith('no task loads > ') && status === 'skipped',
    );
    expect(skipped).toHaveLength(6);
    expect(outcome.blocks.join('')).not.toContain('TypeError');
  });

  it('lists a repeated task id once, with how often it occurs', () => {
    const text = failure('repeated task ids', check.loads);
    expect(text).toContain('task ids that occur more than once');
    expect(text).toContain('"count-1 (3 times)"');
    expect(text).toContain('"count-2 (2 times)"');
    expect(text).not.toContain('"count-3');
  });

  it('names the task, the decisions and what happened when a wrong branch leaves the episode open', () => {
    expect(failed('a wrong branch that does not end the episode').map(([name]) => name)).toEqual([
      `a wrong branch that does not end the episode > ${check.wrongPaths}`,
    ]);
    const text = failure('a wrong branch that does not end the episode', check.wrongPaths);
    expect(text).toContain(
      '"count-1, every decision wrong (count wrong): the plan ran out after 1 action (the last add) and the environment never said done; a policy walking it would stop at its format-error limit"',
    );
  });

  it("names a wrong path that ends only past a harness's step limit", () => {
    expect(failure('a wrong branch longer than the step limit', check.wrongPaths)).toContain(
      `"count-1, every decision wrong (count wrong): the environment said done only at action 7, past harness ${createPlainHarness().spec.id}'s step limit of 5"`,
    );
  });

  it('reports an oracle plan that never ends as such, not as a task it does not solve', () => {
    const text = failure('an oracle plan that never ends', check.oracle);
    expect(text).toContain('plans whose actions run out before the environment says done');
    expect(text).toContain('"count-1: 1 action, the last add"');
    expect(text).not.toContain('does not solve');
  });

  it('says what was expected when doing nothing solves a task', () => {
    const text = failure('every task solved by doing nothing', check.oracle);
    expect(text).toContain('tasks solved by no action or by their empty plan (both must score reward 0, unsolved)');
    expect(text).toContain('"count-1 (no action: reward 1)"');
    expect(text).toContain('"count-1 (empty plan: reward 1)"');
  });

  it('probes every tool with bad arguments, also those listed after one that ends the episode', () => {
    expect(failed('a tool after submit that throws on bad arguments').map(([name]) => name)).toEqual([
      `a tool after submit that throws on bad arguments > ${check.badArguments}`,
    ]);
    expect(failure('a tool after submit that throws on bad arguments', check.badArguments)).toContain(
      'reset: step threw n.toFixed is not a function (n = undefined)',
    );
  });

  it('says what was expected when concurrent episodes share state', () => {
    expect(failed('concurrent episodes that share state').map(([name]) => name)).toEqual([
      `concurrent episodes that share state > ${check.concurrent}`,
    ]);
    expect(failure('concurrent episodes that share state', check.concurrent)).toContain(
      'count-1: the second episode, which did nothing, should be unsolved after the first solved the task (episodes must not share state)',
    );
    // A plan that does not solve the task while another episode is open.
    expect(failure('an oracle plan that never ends', check.concurrent)).toContain(
      'count-1: the episode that followed the oracle plan, with a second episode of the task open, should be solved (check submitted failed: submitted nothing)',
    );
  });
});
