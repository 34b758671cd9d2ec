import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAttempt } from './agent-loop.js';
import { InputError } from './errors.js';
import { dropTornLine, RunStore, readTrajectories } from './run-store.js';
import { callTool, createCounterEnvironment, createPlainHarness, createScriptedPolicy } from './testing/index.js';

async function someTrajectory(attempt: number) {
  const { environment } = createCounterEnvironment();
  return runAttempt({
    environment,
    task: { id: 'count-1', env: 'counter', split: 'dev', instruction: 'x', tags: [], target: 1 } as never,
    harness: createPlainHarness(),
    policy: createScriptedPolicy([callTool('add', { n: 1 }), callTool('submit')]),
    runId: 'r',
    attempt,
    seed: 0,
  });
}

describe('RunStore', () => {
  it('writes config, appends trajectories and a summary, and reads them back validated', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'run-')), 'run');
    const store = await RunStore.create(dir, { hello: 'world' });
    await Promise.all([
      store.appendTrajectory(await someTrajectory(0)),
      store.appendTrajectory(await someTrajectory(1)),
    ]);
    await store.writeSummary({ ok: true });
    await store.close();
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({ hello: 'world' });
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'))).toEqual({ ok: true });
    const trajectories = await readTrajectories(dir);
    expect(trajectories.map((trajectory) => trajectory.attempt).sort()).toEqual([0, 1]);
    // Closed: used again, it says so by name; closed again, nothing happens.
    await store.close();
    expect(() => store.appendTrajectory(trajectories[0] as never)).toThrow(
      `RunStore of ${dir} is closed: appending a trajectory needs a store open (RunStore.create)`,
    );
    await expect(store.writeSummary({})).rejects.toThrow(/is closed: writing the summary/);
  });

  it('drops a torn last line left by a killed run, but rejects corruption elsewhere', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'run-')), 'run');
    const store = await RunStore.create(dir, {});
    await store.appendTrajectory(await someTrajectory(0));
    await store.close();
    await appendFile(join(dir, 'trajectories.jsonl'), '{"schemaVersion":1,"id":"cou');
    expect(await readTrajectories(dir)).toHaveLength(1);

    // Continued, the store cuts the torn line off before it appends, so the file still reads.
    const continued = await RunStore.create(dir, {});
    await continued.appendTrajectory(await someTrajectory(1));
    await continued.close();
    expect((await readTrajectories(dir)).map((trajectory) => trajectory.attempt)).toEqual([0, 1]);
    // A file that is one torn line is emptied; a whole last line stays.
    const lone = join(dir, 'lone.jsonl');
    await appendFile(lone, '{"a":');
    await dropTornLine(lone);
    expect(await readFile(lone, 'utf8')).toBe('');
    await appendFile(lone, '{"a":1}\n');
    await dropTornLine(lone);
    expect(await readFile(lone, 'utf8')).toBe('{"a":1}\n');

    await appendFile(join(dir, 'trajectories.jsonl'), '{"id": 1}\n');
    await expect(readTrajectories(dir)).rejects.toThrow(InputError);
    await expect(readTrajectories(dir)).rejects.toThrow(/trajectories\.jsonl:3/);
  });
});
