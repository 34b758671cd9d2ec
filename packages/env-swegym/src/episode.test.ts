import { type ExecResult, InfrastructureError } from '@harness-s/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { embeddedInstancesPath } from './embedded-repos.js';
import { SweEpisode } from './episode.js';
import type { GitRunner } from './git.js';
import type { SweTask } from './instance.js';
import { loadSweInstances } from './records.js';
import { SandboxUnusableError, type SweSandbox, type Workspace } from './swe-sandbox.js';

const fullTable =
  'its process table is full (128 of 128 processes: a fork bomb, or processes left running in the background)';

const result = (exitCode: number, stdout = '', stderr = ''): ExecResult => ({
  exitCode,
  stdout,
  stderr,
  timedOut: false,
  truncatedChars: 0,
  durationMs: 1,
});

/** A sandbox whose commands answer from a script; `broken` makes it report a full process table. */
class ScriptedSandbox implements SweSandbox {
  readonly kind = 'docker' as const;
  readonly image = 'img';
  readonly repoPath = '/testbed';
  readonly scratchPath = '/tmp/harness-s';
  readonly workspace: Workspace | null = null;
  broken = false;
  resets = 0;
  /** Whether reset() is refused, as for a container of an image's repository. */
  refuseReset = false;
  /** What exec throws instead of answering, once. */
  throwOnce: Error | null = null;
  constructor(
    readonly id: string,
    readonly reusable = true,
  ) {}
  async exec(command: string): Promise<ExecResult> {
    if (this.throwOnce) {
      const error = this.throwOnce;
      this.throwOnce = null;
      throw error;
    }
    if (this.broken) return result(125, '', 'timeout: fork system call failed: Resource temporarily unavailable\n');
    if (command.includes('exit 125')) return result(125);
    return result(0, 'ok\n');
  }
  async whyUnusable() {
    return this.broken ? fullTable : null;
  }
  async reset() {
    this.resets += 1;
    if (this.refuseReset) throw new InfrastructureError('not in place', { code: 'reset-unsupported' });
    this.broken = false;
  }
  git(): GitRunner {
    return {
      run: async () =>
        this.broken
          ? { exitCode: 125, stdout: '', stderr: 'timeout: fork system call failed' }
          : { exitCode: 0, stdout: '', stderr: '' },
    };
  }
  async prepare() {}
  async destroy() {}
  async readFile() {
    return '';
  }
  async writeFile() {}
}

let task: SweTask;
beforeAll(async () => {
  const { tasks } = await loadSweInstances(embeddedInstancesPath, { embeddedSplit: 'dev' });
  if (!tasks[0]) throw new Error('no embedded task');
  task = tasks[0];
});

function episodeIn(sandbox: ScriptedSandbox) {
  const replaced: SweSandbox[] = [];
  const fresh = new ScriptedSandbox('fresh');
  const episode = new SweEpisode(task, sandbox, {
    commandTimeoutMs: 1000,
    maxOutputChars: 10_000,
    release: async () => {},
    replace: async (broken) => {
      replaced.push(broken);
      return fresh;
    },
  });
  return { episode, replaced, fresh };
}

const bash = (command: string) => ({ tool: 'bash', arguments: { command } });

describe('a sandbox that stopped working', () => {
  it('is replaced when a command finds its process table full, and the agent is told so', async () => {
    const sandbox = new ScriptedSandbox('s');
    const { episode, replaced } = episodeIn(sandbox);
    sandbox.broken = true;
    const step = await episode.step(bash('echo hi'));
    expect(step.done).toBe(false);
    expect(step.error).toEqual({ kind: 'sandbox-replaced', message: fullTable });
    expect(step.observation).toMatch(
      /^<returncode>125<\/returncode>\n<warning>The sandbox stopped working: its process table is full \(128 of 128/,
    );
    expect(step.observation).toContain('replaced by a fresh one with the repository at its starting commit');
    // Reset in place (a restart of a reusable container), not thrown away.
    expect({ resets: sandbox.resets, replaced: replaced.length }).toEqual({ resets: 1, replaced: 0 });
    expect((await episode.step(bash('echo hi'))).observation).toBe(
      '<returncode>0</returncode>\n<output>\nok\n</output>',
    );
  });

  it('gives way to a new sandbox when it cannot be reset in place', async () => {
    const sandbox = new ScriptedSandbox('s', false);
    sandbox.refuseReset = true;
    const { episode, replaced, fresh } = episodeIn(sandbox);
    sandbox.throwOnce = new SandboxUnusableError('s', 'its container is not running any more (exited, exit code 0)');
    const step = await episode.step(bash('echo hi'));
    expect(step.error?.kind).toBe('sandbox-replaced');
    expect(step.observation).toContain('its container is not running any more');
    expect(replaced).toEqual([sandbox]);
    await episode.step(bash('echo again'));
    expect(fresh.resets).toBe(0);
  });

  it('does not submit changes it cannot read: the agent hears why and may go on', async () => {
    const sandbox = new ScriptedSandbox('s');
    const { episode } = episodeIn(sandbox);
    sandbox.broken = true;
    const step = await episode.step({ tool: 'submit', arguments: {} });
    expect(step).toMatchObject({ done: false, error: { kind: 'sandbox-replaced' } });
    expect((await episode.step({ tool: 'submit', arguments: {} })).done).toBe(true);
  });

  it('is left alone when a command itself exits 125 in a sandbox that works', async () => {
    const sandbox = new ScriptedSandbox('s');
    const { episode } = episodeIn(sandbox);
    const step = await episode.step(bash('exit 125'));
    expect(step.error).toEqual({ kind: 'exit-code', message: 'exit code 125' });
    expect(sandbox.resets).toBe(0);
  });

  it('is told apart from other infrastructure errors, which still end the attempt', async () => {
    const sandbox = new ScriptedSandbox('s');
    const { episode } = episodeIn(sandbox);
    sandbox.throwOnce = new InfrastructureError('docker exec failed: daemon gone', { code: 'exec-failed' });
    await expect(episode.step(bash('echo hi'))).rejects.toMatchObject({ code: 'exec-failed' });
  });
});
