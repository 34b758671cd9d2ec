import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { removeSwegymContainers } from './docker-provider.js';
import { createSwegymEnvironment } from './environment.js';
import type { SweTask } from './instance.js';

const enabled = await dockerTestsEnabled();
const runLabel = `test-faults-${randomBytes(4).toString('hex')}`;

describe.runIf(enabled)('faults inside a container stay there, and the next episode runs', () => {
  // Small limits, so the faults hit them quickly; one warm container, so the next episode reuses it.
  const environment = createSwegymEnvironment({
    sandbox: 'docker',
    runLabel,
    limits: { memoryBytes: 256 * 1024 ** 2, pids: 128, cpus: 1 },
    maxIdleSandboxes: 1,
    commandTimeoutMs: 5_000,
  });
  let task: SweTask;

  beforeAll(async () => {
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    task = tasks[0] as SweTask;
  });

  afterAll(async () => {
    await environment.close();
    const docker = (await import('./docker-provider.js')).defaultDockerClient();
    expect(await removeSwegymContainers(docker, { runLabel, includeLive: true })).toEqual([]);
  });

  const nextEpisodeRuns = async () => {
    const episode = await environment.open(task);
    try {
      const result = await episode.step({
        tool: 'bash',
        arguments: { command: 'echo alive && git status --porcelain' },
      });
      expect(result.observation).toBe('<returncode>0</returncode>\n<output>\nalive\n</output>');
    } finally {
      await episode.close();
    }
  };

  it('a fork bomb stops at the process limit; the episode ends and the next one runs', async () => {
    const episode = await environment.open(task);
    const docker = (await import('./docker-provider.js')).defaultDockerClient();
    try {
      const bomb = await episode.step({
        tool: 'bash',
        arguments: { command: 'bomb() { bomb | bomb & }; bomb; sleep 2' },
      });
      expect(bomb.done).toBe(false);
      const [container] = await docker.listContainers({ filters: { label: [`harness-s.run=${runLabel}`] } });
      if (!container) throw new Error('no container');
      const stats = await docker.getContainer(container.Id).stats({ stream: false });
      expect(stats.pids_stats?.current ?? 0).toBeLessThanOrEqual(128);
    } finally {
      await episode.close();
    }
    await nextEpisodeRuns();
  });

  it('a memory hog is killed at the memory limit; the episode goes on and the next one runs', async () => {
    const episode = await environment.open(task);
    try {
      const hog = await episode.step({
        tool: 'bash',
        arguments: { command: 'python3 -c "data = b\'x\' * (1024 ** 3); print(len(data))"' },
      });
      expect(hog.observation).toMatch(/^<returncode>137<\/returncode>/);
      const after = await episode.step({ tool: 'bash', arguments: { command: 'echo still here' } });
      expect(after.observation).toContain('still here');
    } finally {
      await episode.close();
    }
    await nextEpisodeRuns();
  });

  it('a command that never ends is killed at the limit with its partial output', async () => {
    const episode = await environment.open(task);
    try {
      const stuck = await episode.step({ tool: 'bash', arguments: { command: 'echo partial; tail -f /dev/null' } });
      expect(stuck.error?.kind).toBe('timeout');
      expect(stuck.observation).toContain('partial');
    } finally {
      await episode.close();
    }
    await nextEpisodeRuns();
  });
});
