import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Action, rightPath } from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { declaredVolume, makeRepositoryImage, removeRepositoryImage } from './__fixtures__/repository-image.js';
import { containerLabels } from './container-spec.js';
import { createDockerSandboxProvider, removeSwegymContainers } from './docker-provider.js';
import type { DockerSandbox } from './docker-sandbox.js';
import { embeddedInstancesPath } from './embedded-repos.js';
import { createSwegymEnvironment } from './environment.js';
import type { InstanceReport } from './grading.js';
import type { SweTask } from './instance.js';
import { goldPatchPlan, swegymEmptyPlan } from './oracle-plan.js';
import { loadSweInstances } from './records.js';
import type { Workspace } from './swe-sandbox.js';

const enabled = await dockerTestsEnabled();
const suffix = randomBytes(4).toString('hex');
const runLabel = `test-confinement-${suffix}`;
const labels = containerLabels(runLabel);
const image = `harness-s/swegym-test-repository:${suffix}`;
const mib = 1024 ** 2;
const diskBytes = 64 * mib;
const buildBytes = 2 * mib;
const provider = createDockerSandboxProvider({ limits: { memoryBytes: 512 * mib, pids: 128, cpus: 1, diskBytes } });

/** Every file system a command could write, and places that must stay read-only. */
const bounded = [
  '/testbed/fill',
  '/tmp/fill',
  '/var/tmp/fill',
  '/root/fill',
  `${declaredVolume}/fill`,
  '/dev/shm/fill',
];
const readOnly = ['/fill', '/usr/local/fill', '/opt/fill', '/etc/hosts', '/etc/hostname'];

/** Writes 100 MiB to each path: one line each, `path bytes-written error`. */
const fillScript = [...bounded, ...readOnly]
  .map(
    (path) =>
      `error=$( { head -c ${100 * mib} /dev/zero > ${path}; } 2>&1 ); echo "${path} $(stat -c %s ${path} 2>/dev/null || echo 0) \${error##*: }"`,
  )
  .join('\n');

/**
 * What a command can do with capabilities: each attempt prints `name allowed` or `name denied`,
 * after the capability sets of the command's shell and of PID 1.
 */
const capabilityScript = `
grep -h '^Cap' /proc/self/status /proc/1/status | awk '{ print $2 }' | sort | uniq -c | awk '{ print $2 }'
cd /tmp/harness-s && echo secret > secret && chmod 000 secret && echo mine > mine
try() { name=$1; shift; if "$@" > /dev/null 2>&1; then echo "$name allowed"; else echo "$name denied"; fi; }
try mknod mknod node c 1 3
try chroot chroot / true
try raw-socket python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'
try setuid python3 -c 'import os; os.setuid(12345)'
try setgid python3 -c 'import os; os.setgid(12345)'
try chown chown 12345:12345 mine
try read-unreadable cat secret
true`;

const everyCapabilityDenied = [
  '0000000000000000',
  'mknod denied',
  'chroot denied',
  'raw-socket denied',
  'setuid denied',
  'setgid denied',
  'chown denied',
  'read-unreadable denied',
  '',
].join('\n');

describe.runIf(enabled)("the confinement of a container's commands", () => {
  let task: SweTask;
  let hostWorkspace: Workspace;
  let imageWorkspace: Workspace;
  let fileDir: string;

  beforeAll(async () => {
    const { tasks } = await loadSweInstances(embeddedInstancesPath, { embeddedSplit: 'dev' });
    const first = tasks[0];
    if (!first?.runtime.hostRepo) throw new Error('no embedded task');
    task = first;
    const { baseCommit } = task.instance;
    hostWorkspace = { kind: 'host', hostRepo: first.runtime.hostRepo, repoPath: '/testbed', baseCommit };
    imageWorkspace = { kind: 'image', repoPath: '/testbed', baseCommit };
    await makeRepositoryImage(provider.docker, { hostRepo: first.runtime.hostRepo, name: image, labels, buildBytes });
    fileDir = await mkdtemp(join(tmpdir(), 'swegym-confinement-'));
  }, 300_000);

  afterAll(async () => {
    await removeSwegymContainers(provider.docker, { runLabel, includeLive: true });
    await removeRepositoryImage(provider.docker, image);
    if (fileDir) await rm(fileDir, { recursive: true, force: true });
  });

  it("bounds what commands write in a container of an image's repository, and none of it reaches this machine's disk", async () => {
    const sandbox = (await provider.create({ image, labels, repository: 'image' })) as DockerSandbox;
    try {
      await sandbox.prepare(imageWorkspace);
      const result = await sandbox.exec(fillScript, { timeoutMs: 120_000, cwd: '/' });
      const lines = result.stdout.trim().split('\n');
      const outcome = new Map(
        lines.map((line) => {
          const [path = '', bytes = '', ...error] = line.split(' ');
          return [path, { bytes: Number(bytes), error: error.join(' ') }];
        }),
      );
      const errors = Object.fromEntries([...outcome].map(([path, { error }]) => [path, error]));
      expect(errors).toEqual({
        ...Object.fromEntries(bounded.map((path) => [path, 'No space left on device'])),
        ...Object.fromEntries(readOnly.map((path) => [path, 'Read-only file system'])),
      });
      for (const path of bounded) expect(outcome.get(path)?.bytes).toBeLessThanOrEqual(diskBytes);
      // The container's own layer on this machine's disk did not grow, and no volume was made for it.
      const [info] = await provider.docker.listContainers({ all: true, size: true, filters: { id: [sandbox.id] } });
      expect(info).toBeDefined();
      // The daemon leaves SizeRw out when it is 0.
      expect((info as { SizeRw?: number } | undefined)?.SizeRw ?? 0).toBeLessThan(mib);
      expect(info?.Mounts.filter((mount) => mount.Type === 'volume')).toEqual([]);
    } finally {
      await sandbox.destroy();
    }
  });

  it("puts the image's own repository, as the image holds it, in that bounded file system", async () => {
    const sandbox = (await provider.create({ image, labels, repository: 'image' })) as DockerSandbox;
    try {
      expect(sandbox.reusable).toBe(false);
      await sandbox.prepare(imageWorkspace);
      const look = await sandbox.exec(
        'git rev-parse HEAD && git status --porcelain && stat -c "%s %a" build/ext.so && stat -f -c %T . && df -B1 --output=size . | tail -1 | tr -d " "',
      );
      expect(look.stdout.split('\n')).toEqual([
        imageWorkspace.baseCommit,
        `${buildBytes} 600`,
        'tmpfs',
        String(diskBytes),
        '',
      ]);
    } finally {
      await sandbox.destroy();
    }
  });

  it('refuses an image whose repository does not fit in limits.diskBytes, and leaves no container', async () => {
    const small = createDockerSandboxProvider({ limits: { diskBytes: mib } });
    const tooSmall = { ...labels, 'harness-s.test': `too-small-${suffix}` };
    const refused = await small.create({ image, labels: tooSmall, repository: 'image' }).then(
      async (sandbox) => {
        await sandbox.destroy();
        return null;
      },
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: 'repository-too-large',
      message: expect.stringContaining('limits.diskBytes'),
    });
    const left = await provider.docker.listContainers({
      all: true,
      filters: { label: [`harness-s.test=too-small-${suffix}`] },
    });
    expect(left).toEqual([]);
  });

  it('runs every command without any capability, in either kind of container, as nobody where the repository is copied in', async () => {
    for (const repository of ['host', 'image'] as const) {
      const sandbox = (await provider.create({ image, labels, repository })) as DockerSandbox;
      try {
        await sandbox.prepare(repository === 'host' ? hostWorkspace : imageWorkspace);
        const seen = await sandbox.exec(capabilityScript, { timeoutMs: 60_000 });
        expect({ repository, seen: seen.stdout }).toEqual({ repository, seen: everyCapabilityDenied });
        // A repository copied in: nobody, owning the repository and its home, which git and tools
        // need. An image's own repository: the image's root, as SWE-bench recorded its results.
        const uid = repository === 'host' ? '65534' : '0';
        const who = await sandbox.exec('id -u; id -g; stat -c %u "$PWD" "$HOME"; git status --short | wc -l');
        expect({ repository, who: who.stdout }).toEqual({ repository, who: `${uid}\n${uid}\n${uid}\n${uid}\n0\n` });
        const info = await provider.docker.getContainer(sandbox.id).inspect();
        expect(info.Config.User).toBe(repository === 'host' ? '65534:65534' : '');
        expect(info.HostConfig.CapDrop).toEqual(['ALL']);
        expect(info.HostConfig.CapAdd ?? []).toEqual([]);
        // The container is still whole: PID 1 lives, and the next command runs.
        expect((await sandbox.exec('echo alive')).stdout).toBe('alive\n');
      } finally {
        await sandbox.destroy();
      }
    }
  });

  it("grades in containers of an image's repository: the gold patch resolves, the empty one does not", async () => {
    // The instance as SWE-bench ships one: its repository is in the image, not on this machine.
    const [line] = (await readFile(embeddedInstancesPath, 'utf8')).split('\n').filter((text) => {
      return (JSON.parse(text || '{}') as { instance_id?: string }).instance_id === task.id;
    });
    const { harness_s: _embedded, ...record } = JSON.parse(line ?? '{}') as Record<string, unknown>;
    const file = join(fileDir, 'instances.jsonl');
    await writeFile(file, `${JSON.stringify({ ...record, image_name: image })}\n`);
    const environment = createSwegymEnvironment({
      sandbox: 'docker',
      runLabel,
      limits: { memoryBytes: 512 * mib, diskBytes },
      cacheGrades: 'off',
    });
    try {
      const { tasks } = await environment.loadTasks({ file });
      const [shipped] = tasks;
      if (!shipped) throw new Error('no task');
      expect(shipped.runtime.hostRepo).toBeNull();
      const grade = async (actions: Action[]) => {
        const episode = await environment.open(shipped);
        try {
          for (const action of actions) if ((await episode.step(action)).done) break;
          return (await episode.evaluate()).details['report'] as InstanceReport;
        } finally {
          await episode.close();
        }
      };
      const gold = await grade(rightPath(goldPatchPlan(shipped).nodes));
      const empty = await grade(rightPath(swegymEmptyPlan(shipped).nodes));
      expect({ gold: gold.resolution, error: gold.error }).toEqual({ gold: 'FULL', error: null });
      expect({ empty: empty.resolution, passing: empty.tests_status.FAIL_TO_PASS.success }).toEqual({
        empty: 'NO',
        passing: [],
      });
      // Containers of an image's repository serve one episode: none was kept.
      expect(environment.pool.stats.reused + environment.pool.stats.retargeted).toBe(0);
    } finally {
      await environment.close();
    }
  }, 300_000);
});
