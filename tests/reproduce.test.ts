import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAndInterrupt, runAndKill, runCli } from './src/cli-process.js';

/** Records saved so far in a reproduction's results.json (0 before the first). */
function savedRecords(resultsFile: string): number {
  try {
    return (JSON.parse(readFileSync(resultsFile, 'utf8')) as { records: unknown[] }).records.length;
  } catch {
    return 0;
  }
}

/** A result record without what depends on the clock. */
const timeless = (record: unknown) =>
  JSON.parse(JSON.stringify(record, (key, value) => (/seconds|duration|At$/i.test(key) ? undefined : value)));

async function records(dir: string): Promise<unknown[]> {
  const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as { records: unknown[] };
  return results.records.map(timeless);
}

const quick = ['reproduce', '--quick', '--envs', 'dbbench', '--seeds', '1'];

describe('harness-s reproduce', () => {
  it('gives the same records in worker threads as one run after another, reuses a pool, and resumes after SIGKILL', async () => {
    const base = await mkdtemp(join(tmpdir(), 'reproduce-'));
    const parallel = join(base, 'parallel');
    const serial = join(base, 'serial');

    const first = await runCli([...quick, '--jobs', '2', '--out', parallel]);
    expect(first.stderr).toContain('2 at a time');
    expect(first.code).toBe(0);
    // The tables and where the results and report are.
    expect(first.stdout).toMatch(/Pass@3/);
    expect(first.stdout).toContain('Router ablations');
    expect(first.stdout).toContain(`Results: ${join(parallel, 'results.json')}`);
    expect(first.stdout).toContain(`Report: ${join(parallel, 'report.html')}`);
    expect(existsSync(join(parallel, 'report.html'))).toBe(true);

    const second = await runCli([
      ...quick,
      '--jobs',
      '1',
      '--pools',
      join(parallel, 'pools'),
      '--out',
      serial,
      '--no-report',
    ]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('sibling pool loaded from');
    expect(second.stderr).not.toContain('evolving the sibling pool');

    const [expected, actual] = await Promise.all([records(parallel), records(serial)]);
    // Four methods and two router ablations for the one seed, in table order.
    expect(expected.map((record) => (record as { method: string; variant: string }).variant)).toEqual([
      'main',
      'main',
      'main',
      'main',
      'fixed-profiles',
      'rescue-4x2',
    ]);
    expect(actual).toEqual(expected);

    // Continued with --rescue-study: nothing is trained again; the harness-s run is studied at its
    // first, middle and last step, and the study is printed and kept in its record and its folder.
    // A saved record of a run this invocation does not make (another environment) stays saved.
    const resultsFile = join(serial, 'results.json');
    const saved = JSON.parse(await readFile(resultsFile, 'utf8')) as { records: Array<Record<string, unknown>> };
    const foreign = { ...saved.records[0], env: 'elsewhere' };
    await writeFile(resultsFile, JSON.stringify({ ...saved, records: [...saved.records, foreign] }));
    const study = [...quick, '--jobs', '1', '--out', serial, '--no-report', '--rescue-study', '1'];
    const studied = await runCli(study);
    expect(studied.code).toBe(0);
    expect(studied.stdout).toContain('Rescue study of the harness-s runs');
    // The tables show the kept record too, and say so.
    expect(studied.stdout).toContain('1 record(s) of runs made before, not by this invocation, are in the tables too.');
    expect(studied.stdout).toMatch(/^elsewhere\b/m);
    const all = (await records(serial)) as Array<Record<string, unknown>>;
    expect(all.at(-1)).toEqual(timeless(foreign));
    const withStudy = all.slice(0, -1);
    const ofStudy = withStudy.filter((record) => record['rescueStudy']);
    expect(ofStudy.map((record) => [record['method'], record['variant']])).toEqual([['harness-s', 'main']]);
    const summary = ofStudy[0]?.['rescueStudy'] as { reps: number; stages: Array<{ step: number }> };
    expect(summary.reps).toBe(1);
    expect(summary.stages.map((stage) => stage.step)).toEqual([0, 3, 6]);
    expect(withStudy.map(({ rescueStudy: _, ...rest }) => rest)).toEqual(expected);
    const studyFile = join(serial, String(ofStudy[0]?.['runDir']), 'rescue-study.json');
    const written = statSync(studyFile).mtimeMs;
    // Continued again with the same study: the file is read, not studied anew.
    const reread = await runCli(study);
    expect(reread.code).toBe(0);
    expect(await records(serial)).toEqual(all);
    expect(statSync(studyFile).mtimeMs).toBe(written);
    // Other steps (--study-steps, in any order): studied anew at those.
    const chosen = await runCli([...study, '--study-steps', '6,0']);
    expect(chosen.code).toBe(0);
    const restudied = JSON.parse(await readFile(studyFile, 'utf8')) as { stages: Array<{ step: number }> };
    expect(restudied.stages.map((stage) => stage.step)).toEqual([0, 6]);

    // Killed with SIGKILL after its first saved record, then rerun on the same folder: the same records.
    const killed = join(base, 'killed');
    const again = [...quick, '--jobs', '2', '--pools', join(parallel, 'pools'), '--out', killed, '--no-report'];
    await runAndKill(again, () => savedRecords(join(killed, 'results.json')) >= 1);
    expect((await records(killed)).length).toBeLessThan(expected.length);
    const resumed = await runCli(again);
    expect(resumed.code).toBe(0);
    expect(await records(killed)).toEqual(expected);

    // Interrupted with Ctrl-C (SIGINT to the process group) after its first saved record: it stops
    // its running trainings at their next attempt, closes, says how to continue; rerun, the same records.
    const interrupted = join(base, 'interrupted');
    const once = [...quick, '--jobs', '2', '--pools', join(parallel, 'pools'), '--out', interrupted, '--no-report'];
    const stopped = await runAndInterrupt(once, () => savedRecords(join(interrupted, 'results.json')) >= 1);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(
      /interrupted; finished runs .* to continue, run reproduce again with the same flags and --out /,
    );
    expect(stopped.afterSignalMs).toBeLessThan(30_000);
    expect((await records(interrupted)).length).toBeLessThan(expected.length);
    const continued = await runCli(once);
    expect(continued.code).toBe(0);
    expect(await records(interrupted)).toEqual(expected);
  }, 600_000);

  it('refuses, before any work, a --pools folder that lacks an environment and a shared PGlite folder', async () => {
    const base = await mkdtemp(join(tmpdir(), 'reproduce-'));
    const run = await runCli([...quick, '--pools', join(base, 'nowhere'), '--out', join(base, 'out')]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(join(base, 'nowhere', 'dbbench'));
    expect(existsSync(join(base, 'out'))).toBe(false);

    // One PGlite folder cannot serve two training runs at once.
    const shared = await runCli([
      ...quick,
      '--jobs',
      '2',
      '--db',
      `pglite:${join(base, 'cluster')}`,
      '--out',
      join(base, 'out'),
    ]);
    expect(shared.code).not.toBe(0);
    expect(shared.stderr).toMatch(/PGlite folder serves one process at a time; use --jobs 1/);
    expect(existsSync(join(base, 'out'))).toBe(false);
  }, 60_000);
});
