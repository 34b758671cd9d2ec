import { type Evaluation, planSkills, rightPath } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwegymEnvironment, sandboxFor } from './environment.js';
import type { InstanceReport } from './grading.js';
import type { SweTask } from './instance.js';
import { editCommand } from './oracle-plan.js';

const environment = createSwegymEnvironment({ sandbox: 'local', actionsFrom: 'plan', commandTimeoutMs: 5_000 });
let tasks: SweTask[] = [];
const task = (id: string): SweTask => {
  const found = tasks.find((item) => item.id === id);
  if (!found) throw new Error(`no task ${id}`);
  return found;
};

beforeAll(async () => {
  ({ tasks } = await environment.loadTasks({ split: 'all' }));
}, 120_000);
afterAll(() => environment.close());

/** Runs bash commands (and submits unless told not to) in a fresh episode; returns the evaluation. */
async function attempt(subject: SweTask, commands: string[], submit = true): Promise<Evaluation> {
  const episode = await environment.open(subject);
  try {
    for (const command of commands) await episode.step({ tool: 'bash', arguments: { command } });
    if (submit) expect((await episode.step({ tool: 'submit', arguments: {} })).done).toBe(true);
    return await episode.evaluate();
  } finally {
    await episode.close();
  }
}

const reportOf = (evaluation: Evaluation) => evaluation.details['report'] as InstanceReport;

describe('where episodes run', () => {
  it("runs plans locally and a model's commands in Docker unless told otherwise", () => {
    expect(sandboxFor({ actionsFrom: 'plan' })).toBe('local');
    expect(sandboxFor({ actionsFrom: 'model' })).toBe('docker');
    // Nothing said: the commands may be a model's.
    expect(sandboxFor()).toBe('docker');
    expect(sandboxFor({ actionsFrom: 'plan', sandbox: 'docker' })).toBe('docker');
  });

  it("refuses a model's commands in the local sandbox before any work, unless unconfined", async () => {
    expect(() => sandboxFor({ sandbox: 'local' })).toThrow(
      /local sandbox runs every command on this machine, unconfined/,
    );
    expect(() => createSwegymEnvironment({ sandbox: 'local', actionsFrom: 'model' })).toThrow(
      expect.objectContaining({ code: 'unconfined-actions' }),
    );
    expect(sandboxFor({ sandbox: 'local', unconfined: true })).toBe('local');
    // Allowing unconfined commands does not choose the local sandbox.
    expect(sandboxFor({ actionsFrom: 'model', unconfined: true })).toBe('docker');
    const confined = createSwegymEnvironment({ actionsFrom: 'model' });
    expect(confined.sandboxKind).toBe('docker');
    await confined.close();
  });
});

describe('embedded instance set', () => {
  it('ships train, dev and test splits of 8, 3 and 7 instances, JavaScript and Python', async () => {
    const counts: Record<string, number> = {};
    for (const split of ['train', 'dev', 'test']) counts[split] = (await environment.loadTasks({ split })).tasks.length;
    expect(counts).toEqual({ train: 8, dev: 3, test: 7 });
    expect(tasks).toHaveLength(18);
    expect(new Set(tasks.map((item) => item.category))).toEqual(new Set(['javascript', 'python']));
    for (const item of tasks) {
      expect(item.instance.failToPass.length).toBeGreaterThan(0);
      expect(item.instance.passToPass.length).toBeGreaterThan(0);
      expect(item.runtime.hostRepo).toBeTruthy();
    }
    await expect(environment.loadTasks({ split: 'nope' })).rejects.toThrow(/no split 'nope'/);
  });

  it('gives every instance an oracle plan whose decision points name the environment skills', () => {
    const known = new Set(environment.skills.map((skill) => skill.name));
    const seen = new Set<string>();
    for (const item of tasks) {
      const skills = planSkills(environment.oraclePlan(item).nodes);
      for (const skill of skills) {
        expect(known.has(skill)).toBe(true);
        seen.add(skill);
      }
      const path = rightPath(environment.oraclePlan(item).nodes);
      expect(path.at(-1)?.tool).toBe('submit');
    }
    expect(seen).toEqual(known);
  });
});

describe('episodes', () => {
  it('answers bash with the return code and output, cuts long output, and kills commands at the limit', async () => {
    const episode = await environment.open(task('embedded__intervals-1'));
    try {
      const ok = await episode.step({ tool: 'bash', arguments: { command: 'echo out; echo err >&2; exit 4' } });
      expect(ok.observation).toBe('<returncode>4</returncode>\n<output>\nout\nerr\n</output>');
      expect(ok.error?.kind).toBe('exit-code');
      const long = await episode.step({ tool: 'bash', arguments: { command: 'seq 1 50000' } });
      expect(long.observation).toMatch(/characters in the middle were elided/);
      expect(long.observation.length).toBeLessThan(11_000);
      const stuck = await episode.step({ tool: 'bash', arguments: { command: 'echo before; sleep 600' } });
      expect(stuck.error?.kind).toBe('timeout');
      expect(stuck.observation).toContain('before');
      expect(stuck.observation).toContain('timed out after 5 s');
      const bad = await episode.step({ tool: 'bash', arguments: {} });
      expect(bad.error?.kind).toBe('bad-arguments');
    } finally {
      await episode.close();
    }
  });

  it('grades a partial fix PARTIAL, a wrong fix NO, a leftover debug artifact NO and the gold fix FULL', async () => {
    // A JavaScript instance with a debug print, a Python one with an edited fixture.
    for (const [id, withGold] of [
      ['embedded__query-kit-1', false],
      ['embedded__roman-1', true],
    ] as const) {
      const subject = task(id);
      const oracle = subject.embedded?.oracle;
      if (!oracle) throw new Error('embedded instance without oracle');
      const [first = '', ...rest] = oracle.fix.map(editCommand);
      if (withGold) {
        const gold = await attempt(subject, [first, ...rest]);
        expect(gold).toMatchObject({ reward: 1, success: true });
        expect(reportOf(gold).tests_status.FAIL_TO_PASS.failure).toEqual([]);
      } else {
        const wrong = await attempt(subject, oracle.wrongFix.map(editCommand));
        expect(reportOf(wrong).resolution).toBe('NO');
        expect(reportOf(wrong).tests_status.FAIL_TO_PASS.success).toEqual([]);
      }

      const partial = await attempt(subject, [first]);
      expect(partial.reward).toBe(0);
      expect(reportOf(partial).resolution).toBe('PARTIAL');

      const leftover = await attempt(subject, [editCommand(oracle.debug.edit), first, ...rest]);
      expect(reportOf(leftover).resolution).toBe('NO');
      expect(reportOf(leftover).tests_status.PASS_TO_PASS.failure.length).toBeGreaterThan(0);
      expect(reportOf(leftover).tests_status.FAIL_TO_PASS.failure).toEqual([]);
    }
  });

  it('grades the empty patch NO and an unsubmitted change as an autosubmitted patch', async () => {
    const subject = task('embedded__timeparse-1');
    const empty = await attempt(subject, []);
    expect(reportOf(empty)).toMatchObject({ patch_exists: false, resolved: false, resolution: 'NO' });
    const fix = subject.embedded?.oracle.fix.map(editCommand) ?? [];
    const unsubmitted = await attempt(subject, fix, false);
    expect(unsubmitted.details['submitted']).toBe(false);
    expect(unsubmitted.success).toBe(true);
  });

  it('does not resolve an instance with printed PASS lines when the test command fails', async () => {
    const subject = task('embedded__slugkit-1');
    const names = [...subject.instance.failToPass, ...subject.instance.passToPass];
    // Print a passing unittest line for every expected test, then silence the real report.
    const fake = names.map((name) => `${name.split('.').at(-1)} (${name}) ... ok`).join('\\n');
    const spoof = `cat >> slugkit/__init__.py <<'EOF'\nimport os, sys\nsys.stderr.write("${fake}\\n")\nsys.stderr.flush()\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)\nEOF`;
    const evaluation = await attempt(subject, [spoof]);
    const report = reportOf(evaluation);
    expect(report.test_exit_code).not.toBe(0);
    expect(report.error).toMatch(/not trusted/);
    expect(evaluation.success).toBe(false);
  });

  it('reuses the grade of a patch already graded on the instance, and only of that patch', async () => {
    const subject = task('embedded__intervals-1');
    const oracle = subject.embedded?.oracle;
    if (!oracle) throw new Error('embedded instance without oracle');
    const before = { hits: environment.grades.hits, misses: environment.grades.misses };
    const first = await attempt(subject, oracle.fix.map(editCommand));
    const again = await attempt(subject, oracle.fix.map(editCommand));
    const wrong = await attempt(subject, oracle.wrongFix.map(editCommand));
    expect(environment.grades.hits - before.hits).toBe(1);
    expect(environment.grades.misses - before.misses).toBe(2);
    expect(again.details['report']).toEqual(first.details['report']);
    expect(first.success).toBe(true);
    expect(wrong.success).toBe(false);

    // Off: every episode runs the tests, as SWE-bench grades.
    const uncached = createSwegymEnvironment({ sandbox: 'local', actionsFrom: 'plan', cacheGrades: 'off' });
    try {
      for (let round = 0; round < 2; round++) {
        const episode = await uncached.open(subject);
        for (const command of oracle.fix.map(editCommand)) await episode.step({ tool: 'bash', arguments: { command } });
        expect((await episode.evaluate()).success).toBe(true);
        await episode.close();
      }
      expect({ hits: uncached.grades.hits, misses: uncached.grades.misses }).toEqual({ hits: 0, misses: 0 });
    } finally {
      await uncached.close();
    }
  });

  it('grades in a fresh sandbox when the agent broke its own beyond a reset', async () => {
    const subject = task('embedded__wordfreq-1');
    const evaluation = await attempt(subject, ['rm -rf .git'], false);
    expect(evaluation.success).toBe(false);
    expect(evaluation.details['extractError']).toMatch(/git add -A failed/);
    expect(reportOf(evaluation).patch_is_None).toBe(true);
  });
});
