import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { containerLabels } from './container-spec.js';
import { createDockerSandboxProvider, removeSwegymContainers } from './docker-provider.js';
import type { DockerSandbox } from './docker-sandbox.js';
import { embeddedImageName, embeddedInstancesPath } from './embedded-repos.js';
import { loadSweInstances } from './records.js';
import type { Workspace } from './swe-sandbox.js';

const enabled = await dockerTestsEnabled();
const runLabel = `test-sandbox-${randomBytes(4).toString('hex')}`;
// Small limits, so the fault tests hit them quickly.
const smallDisk = 64 * 1024 ** 2;
const provider = createDockerSandboxProvider({
  limits: { memoryBytes: 256 * 1024 ** 2, pids: 128, cpus: 1, diskBytes: smallDisk },
});
const labels = containerLabels(runLabel);

describe.runIf(enabled)('Docker sandbox', () => {
  let sandbox: DockerSandbox;
  let workspace: Workspace;

  beforeAll(async () => {
    const { tasks } = await loadSweInstances(embeddedInstancesPath, { embeddedSplit: 'dev' });
    const task = tasks[0];
    if (!task?.runtime.hostRepo) throw new Error('no embedded task');
    workspace = {
      kind: 'host',
      hostRepo: task.runtime.hostRepo,
      repoPath: '/testbed',
      baseCommit: task.instance.baseCommit,
    };
    sandbox = (await provider.create({ image: embeddedImageName(), labels })) as DockerSandbox;
    await sandbox.prepare(workspace);
  });

  afterAll(async () => {
    await sandbox?.destroy();
    await removeSwegymContainers(provider.docker, { runLabel, includeLive: true });
  });

  it('runs without network, under the limits, labelled with its run and owner', async () => {
    const info = await provider.docker.getContainer(sandbox.id).inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.Memory).toBe(256 * 1024 ** 2);
    expect(info.HostConfig.PidsLimit).toBe(128);
    expect(info.Config.Labels).toMatchObject({ 'harness-s.run': runLabel, 'harness-s.owner-pid': String(process.pid) });
    expect((await sandbox.exec('ls /sys/class/net')).stdout).toBe('lo\n');
    expect((await sandbox.exec('git rev-parse HEAD')).stdout.trim()).toBe(workspace.baseCommit);
  });

  it('kills a command that never ends at its timeout, with its children, and keeps the partial output', async () => {
    const started = performance.now();
    const result = await sandbox.exec('echo started; sleep 300 & echo waiting; sleep 300', { timeoutMs: 1000 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(137);
    expect(result.stdout).toBe('started\nwaiting\n');
    // `sleep[^.]300` matches the NUL-separated command line of `sleep 300`, not this grep's own.
    const left = await sandbox.exec("grep -la 'sleep[^.]300' /proc/[0-9]*/cmdline 2>/dev/null | wc -l");
    expect(left.stdout.trim()).toBe('0');
  });

  it('kills a memory hog at the memory limit, and the next command runs', async () => {
    const hog = await sandbox.exec('python3 -c "data = b\'x\' * (1024 ** 3); print(len(data))"', { timeoutMs: 60_000 });
    expect(hog.exitCode).toBe(137);
    expect(hog.stdout).not.toContain(String(1024 ** 3));
    expect((await sandbox.exec('echo alive')).stdout).toBe('alive\n');
  });

  it('writes and reads files with any content, and resets to the base commit much faster than a new container', async () => {
    const content = 'line \'one\'\n$HOME "two"\n\u00e9\0end';
    await sandbox.writeFile('/tmp/harness-s/odd.txt', content);
    expect(await sandbox.readFile('/tmp/harness-s/odd.txt')).toBe(content);
    await sandbox.exec('echo broken > README.md && touch new.txt && sleep 300 &');
    const resetStart = performance.now();
    await sandbox.reset();
    const resetMs = performance.now() - resetStart;
    expect((await sandbox.exec('git status --porcelain')).stdout).toBe('');
    const createStart = performance.now();
    const fresh = await provider.create({ image: embeddedImageName(), labels });
    const createMs = performance.now() - createStart;
    await fresh.destroy();
    console.log(`reset ${resetMs.toFixed(0)} ms, new container ${createMs.toFixed(0)} ms`);
    expect(resetMs).toBeLessThan(createMs);
  });

  it("uses an image's own repository as the image holds it, for one episode: its reset is refused", async () => {
    const single = await provider.create({ image: embeddedImageName(), labels, repository: 'image' });
    try {
      expect(single.reusable).toBe(false);
      // As a SWE-bench image holds its repository: a tracked file changed while installing, a build product.
      await single.prepare(workspace);
      await single.exec('echo installed >> README.md && mkdir -p build && echo binary > build/ext.so');
      await single.prepare({ kind: 'image', repoPath: '/testbed', baseCommit: workspace.baseCommit });
      expect(await single.readFile('README.md')).toMatch(/\ninstalled\n$/);
      expect(await single.readFile('build/ext.so')).toBe('binary\n');
      await expect(single.reset()).rejects.toMatchObject({ code: 'reset-unsupported' });
      // A reusable container cannot take an image's repository: its repository is a file system of its own.
      await expect(
        sandbox.prepare({ kind: 'image', repoPath: '/testbed', baseCommit: workspace.baseCommit }),
      ).rejects.toMatchObject({ code: 'workspace-kind-mismatch' });
      await sandbox.prepare(workspace);
    } finally {
      await single.destroy();
    }
  });

  it('keeps the root file system read-only, bounds what commands write, and empties it all on reset', async () => {
    expect(sandbox.reusable).toBe(true);
    const planted = await sandbox.exec(
      'for path in /usr/local/x /etc/x /root/x /tmp/x /var/tmp/x /dev/x /dev/shm/x; do echo planted > $path && echo $path; done 2>/dev/null; true',
    );
    // Commands run as nobody: Docker's /dev is root's (its /dev/shm is everyone's).
    expect(planted.stdout).toBe('/root/x\n/tmp/x\n/var/tmp/x\n/dev/shm/x\n');
    const fill = await sandbox.exec(
      'fallocate -l 5G /var/tmp/fill; fallocate -l 1G big.bin; du -bc /var/tmp/fill big.bin | tail -1',
      {
        timeoutMs: 60_000,
      },
    );
    expect(fill.stderr).toMatch(/No space left on device/);
    expect(Number.parseInt(fill.stdout, 10)).toBeLessThanOrEqual(2 * smallDisk);
    await sandbox.exec('sleep 300 > /dev/null 2>&1 &');
    await sandbox.reset();
    const left = await sandbox.exec(
      'ls /root/x /tmp/x /var/tmp/x /var/tmp/fill /dev/x /dev/shm/x big.bin 2>/dev/null; grep -la "sleep[^.]300" /proc/[0-9]*/cmdline 2>/dev/null; git status --porcelain',
    );
    expect(left.stdout).toBe('');
    // Nothing reached the container's own layer but the repository's mount point, which the daemon made.
    const changes = (await provider.docker.getContainer(sandbox.id).changes()) ?? [];
    expect(changes.map((change: { Path: string }) => change.Path)).toEqual(['/testbed']);
  });

  it('says it is unusable once files in its in-memory file systems fill its memory, and a reset empties them', async () => {
    // Five file systems of diskBytes each, more than memoryBytes together.
    const tight = createDockerSandboxProvider({
      limits: { memoryBytes: 128 * 1024 ** 2, pids: 128, cpus: 1, diskBytes: 100 * 1024 ** 2 },
    });
    const full = (await tight.create({ image: embeddedImageName(), labels })) as DockerSandbox;
    try {
      await full.prepare(workspace);
      expect(await full.whyUnusable()).toBeNull();
      await full.exec('head -c 90M /dev/zero > /tmp/a; head -c 90M /dev/zero > /root/b; true', { timeoutMs: 60_000 });
      expect(await full.whyUnusable()).toMatch(/its memory is full \(\d+ MiB of 128 MiB|not running any more/);
      await full.reset();
      expect(await full.whyUnusable()).toBeNull();
      expect((await full.exec('echo alive')).stdout).toBe('alive\n');
    } finally {
      await full.destroy();
    }
  });

  it('removes its container on destroy, even twice', async () => {
    const extra = await provider.create({ image: embeddedImageName(), labels });
    await extra.destroy();
    await extra.destroy();
    await expect(provider.docker.getContainer(extra.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
