import { randomBytes } from 'node:crypto';
import type { Episode, StepResult } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { defaultDockerClient, removeSwegymContainers } from './docker-provider.js';
import { createSwegymEnvironment } from './environment.js';
import type { SweTask } from './instance.js';

const enabled = await dockerTestsEnabled();
const runLabel = `test-isolation-${randomBytes(4).toString('hex')}`;
const diskBytes = 64 * 1024 ** 2;

// What one episode's commands do must neither decide its grade nor reach a later episode, which gets
// the same warm container (one kept idle).
describe.runIf(enabled)("an episode's commands reach neither its grading nor the next episode", () => {
  const environment = createSwegymEnvironment({
    sandbox: 'docker',
    runLabel,
    limits: { memoryBytes: 512 * 1024 ** 2, pids: 128, cpus: 1, diskBytes },
    maxIdleSandboxes: 1,
    commandTimeoutMs: 20_000,
    cacheGrades: 'off',
  });
  let tasks: SweTask[] = [];
  const task = (id: string): SweTask => {
    const found = tasks.find((item) => item.id === id);
    if (!found) throw new Error(`no task ${id}`);
    return found;
  };
  const bash = (episode: Episode<SweTask>, command: string): Promise<StepResult> =>
    episode.step({ tool: 'bash', arguments: { command } });
  /** Runs `command` at the start of a fresh episode of `id` and returns its observation. */
  const firstLook = async (id: string, command: string): Promise<string> => {
    const episode = await environment.open(task(id));
    try {
      return (await bash(episode, command)).observation;
    } finally {
      await episode.close();
    }
  };

  beforeAll(async () => {
    ({ tasks } = await environment.loadTasks({ split: 'dev' }));
  });

  afterAll(async () => {
    await environment.close();
    expect(await removeSwegymContainers(defaultDockerClient(), { runLabel, includeLive: true })).toEqual([]);
  });

  it('grades the submitted patch from a pristine checkout when the agent rewrote what a reset used to restore', async () => {
    const episode = await environment.open(task('embedded__paginate-1'));
    try {
      await bash(episode, 'sed -i "s#Math.floor(total / perPage)#Math.ceil(total / perPage)#" src/paginate.js');
      await bash(
        episode,
        'git diff --binary HEAD > /tmp/harness-s/baseline.diff && git status --porcelain | LC_ALL=C sort > /tmp/harness-s/baseline-status && git checkout -- src/paginate.js && echo "// reviewed" >> bin/pages.js',
      );
      expect((await bash(episode, 'git status --porcelain')).observation).toContain(' M bin/pages.js');
      expect((await episode.step({ tool: 'submit', arguments: {} })).done).toBe(true);
      const evaluation = await episode.evaluate();
      expect(evaluation.details['patch']).not.toContain('Math.ceil');
      expect({ reward: evaluation.reward, resolution: evaluation.details['resolution'] }).toEqual({
        reward: 0,
        resolution: 'NO',
      });
    } finally {
      await episode.close();
    }
    const reused = environment.pool.stats.reused;
    const start = await firstLook('embedded__paginate-1', 'git status --porcelain && git diff HEAD');
    expect(environment.pool.stats.reused).toBe(reused + 1);
    expect(start).toBe('<returncode>0</returncode>\n<output>\n</output>');
  });

  it('lets no file written outside the repository reach the next episode, of another instance', async () => {
    const paths = ['/root/x', '/usr/local/x', '/etc/x', '/tmp/x', '/var/tmp/x', '/dev/shm/x', '/dev/x'];
    const episode = await environment.open(task('embedded__paginate-1'));
    try {
      await bash(
        episode,
        `for path in ${paths.join(' ')}; do echo planted > $path; done; sleep 300 > /dev/null 2>&1 &`,
      );
    } finally {
      await episode.close();
    }
    const retargeted = environment.pool.stats.retargeted;
    const seen = await firstLook(
      'embedded__dotenv-lite-1',
      `cat ${paths.join(' ')} 2>/dev/null; grep -la 'sleep[^.]300' /proc/[0-9]*/cmdline 2>/dev/null; true`,
    );
    expect(environment.pool.stats.retargeted).toBe(retargeted + 1);
    expect(seen).toBe('<returncode>0</returncode>\n<output>\n</output>');
  });

  it('bounds what an episode writes, and a large file does not outlive it', async () => {
    const episode = await environment.open(task('embedded__paginate-1'));
    try {
      const fill = await bash(
        episode,
        'fallocate -l 5G /var/tmp/fill; fallocate -l 1G big.bin; du -bc /var/tmp/fill big.bin | tail -1',
      );
      expect(fill.observation).toContain('No space left on device');
      const written = Number(/(\d+)\s+total/.exec(fill.observation)?.[1]);
      expect(written).toBeLessThanOrEqual(2 * diskBytes);
    } finally {
      await episode.close();
    }
    expect(await firstLook('embedded__paginate-1', 'ls /var/tmp/fill big.bin 2>/dev/null; true')).toBe(
      '<returncode>0</returncode>\n<output>\n</output>',
    );
  });

  it('replaces a sandbox whose process table a fork bomb filled, and says so', async () => {
    const episode = await environment.open(task('embedded__paginate-1'));
    try {
      await bash(episode, 'echo edited >> README.md');
      const results = [await bash(episode, 'bomb() { bomb | bomb & }; bomb; sleep 2')];
      if (results[0]?.error?.kind !== 'sandbox-replaced') results.push(await bash(episode, 'echo after'));
      const replaced = results.at(-1);
      expect(replaced?.error?.kind).toBe('sandbox-replaced');
      expect(replaced?.observation).toMatch(/process table is full \(\d+ of 128 processes/);
      expect(replaced?.observation).toContain('replaced by a fresh one');
      const after = await bash(episode, 'echo alive && git status --porcelain');
      expect(after.observation).toBe('<returncode>0</returncode>\n<output>\nalive\n</output>');
    } finally {
      await episode.close();
    }
  });
});
