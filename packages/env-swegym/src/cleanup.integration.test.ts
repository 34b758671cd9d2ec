import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { defaultDockerClient } from './docker-provider.js';
import { sandboxLabels } from './swe-sandbox.js';

const enabled = await dockerTestsEnabled();
const root = fileURLToPath(new URL('../../..', import.meta.url));
// One process each (no tsx wrapper in between), so the pid we signal is the one owning containers.
const node = (args: string[]) => [...['--import', 'tsx', '--conditions=source'], ...args];
const spawnNode = (args: string[], stdio: 'pipe' | 'ignore', stderr: 'pipe' | 'inherit' = 'inherit') =>
  spawn(process.execPath, node(args), { cwd: root, stdio: ['ignore', stdio, stderr] });
const docker = defaultDockerClient();

/** Ids of the SWE-Gym containers matching a label filter. */
async function containers(label: string): Promise<string[]> {
  const found = await docker.listContainers({ all: true, filters: { label: [label] } });
  return found.map((container) => container.Id);
}

/** What is known of the SWE-Gym containers matching a label filter: id, state and labels. */
async function describeContainers(label: string): Promise<string> {
  const found = await docker.listContainers({ all: true, filters: { label: [label] } });
  return found
    .map(
      (container) =>
        `${container.Id.slice(0, 12)} ${container.State} (${container.Status}) ${JSON.stringify(container.Labels)}`,
    )
    .join('\n');
}

/** Resolves with the child's stdout once `pattern` appears in it. */
function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms: ${output}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before ${pattern}: ${output}`));
    });
  });
}

const exited = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', resolve),
  );

/** Polls until `check` holds or the time is up. */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return check();
}

describe.runIf(enabled)('no container outlives its run', () => {
  it('leaves a container after SIGKILL, which `harness-s cleanup --env swegym` removes (and leaves live runs alone)', async () => {
    const runLabel = `test-kill-${randomBytes(4).toString('hex')}`;
    const holder = spawnNode([join(root, 'packages/env-swegym/src/__fixtures__/hold-container.ts'), runLabel], 'pipe');
    const liveLabel = `test-live-${randomBytes(4).toString('hex')}`;
    const live = spawnNode([join(root, 'packages/env-swegym/src/__fixtures__/hold-container.ts'), liveLabel], 'pipe');
    try {
      await Promise.all([waitForOutput(holder, /ready \w+/, 120_000), waitForOutput(live, /ready \w+/, 120_000)]);
      holder.kill('SIGKILL');
      await exited(holder);
      expect(await containers(`${sandboxLabels.run}=${runLabel}`)).toHaveLength(1);

      const cleanup = spawnNode([join(root, 'tools/src/cli.ts'), 'cleanup', '--env', 'swegym'], 'pipe');
      let report = '';
      cleanup.stdout?.on('data', (chunk: Buffer) => {
        report += chunk.toString();
      });
      expect(await exited(cleanup)).toBe(0);
      expect(report).toMatch(new RegExp(`removed container \\w+ \\(run ${runLabel}`));
      // ...and says which live run it left alone, and how to remove its containers anyway.
      expect(report).toMatch(
        new RegExp(
          `left run ${liveLabel} alone: 1 container, owned by pid ${live.pid}, still running \\(--all removes them too\\)`,
        ),
      );
      expect(await containers(`${sandboxLabels.run}=${runLabel}`)).toEqual([]);
      // The live run's container is still there: its owner is alive.
      expect(await containers(`${sandboxLabels.run}=${liveLabel}`)).toHaveLength(1);
    } finally {
      holder.kill('SIGKILL');
      live.kill('SIGKILL');
      await exited(live);
      for (const id of await containers(`${sandboxLabels.run}=${liveLabel}`))
        await docker.getContainer(id).remove({ force: true });
    }
  }, 240_000);

  /**
   * Runs a command on Docker sandboxes, interrupts it once its containers are up (the signal sent
   * again 200 ms later, as a wrapper such as npm relays a Ctrl-C), and checks that it stopped cleanly,
   * saying how to continue, with no container left.
   */
  async function interrupt(command: (out: string) => string[], continueWith: RegExp): Promise<void> {
    const out = await mkdtemp(join(tmpdir(), 'swegym-sigint-'));
    const child = spawnNode([join(root, 'tools/src/cli.ts'), ...command(join(out, 'run'))], 'ignore', 'pipe');
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const owner = `${sandboxLabels.ownerPid}=${child.pid}`;
      expect(await eventually(async () => (await containers(owner)).length > 0, 120_000)).toBe(true);
      child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      child.kill('SIGINT');
      const code = await exited(child);
      const left = await describeContainers(owner);
      const ending = `exit code ${code}, signal ${child.signalCode}`;
      expect(left, `containers left (${ending}):\n${left}\nstderr:\n${stderr}`).toBe('');
      expect(stderr, ending).toMatch(continueWith);
      // Interrupted: 130, the run's work kept for --resume.
      expect(code).toBe(130);
    } finally {
      child.kill('SIGKILL');
      await rm(out, { recursive: true, force: true });
    }
  }

  it('removes its containers when an eval is interrupted with SIGINT', async () => {
    await interrupt(
      (out) => [
        ...['eval', '--env', 'swegym', '--sandbox', 'docker', '--policy', 'oracle', '--split', 'dev'],
        ...['--k', '2', '--concurrency', '2', '--out', out, '--quiet'],
      ],
      /harness-s: error: interrupted; .* continue with --resume /,
    );
  }, 240_000);

  it('removes its containers when a training run is interrupted with SIGINT', async () => {
    await interrupt(
      (out) => [
        ...['train', '--env', 'swegym', '--sandbox', 'docker', '--method', 'grpo', '--steps', '2'],
        ...['--batch-size', '2', '--k', '2', '--concurrency', '2', '--out', out, '--quiet'],
      ],
      /harness-s: error: interrupted; the run continues from its last checkpoint with --resume /,
    );
  }, 240_000);
});
