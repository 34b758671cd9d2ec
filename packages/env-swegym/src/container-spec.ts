import { hostname } from 'node:os';
import { ConfigError } from '@harness-s/core';
import type Docker from 'dockerode';
import { sandboxLabels } from './swe-sandbox.js';

/** Resource limits of a container. */
export interface ContainerLimits {
  /** Memory in bytes (swap is not allowed on top). */
  memoryBytes: number;
  /** CPUs, possibly fractional. */
  cpus: number;
  /** Processes and threads at most: a fork bomb stops here. */
  pids: number;
  /**
   * Size of each file system a command can write (the repository's, `/tmp`, `/var/tmp`, `/root`,
   * and one at every volume the image declares): in-memory file systems, so what they hold also
   * counts against `memoryBytes`, and a file written past this size fails with "No space left on
   * device". The repository's holds the repository itself too: an image whose repository does not
   * fit cannot start (code `repository-too-large`).
   */
  diskBytes: number;
}

export const defaultContainerLimits: ContainerLimits = {
  memoryBytes: 1024 ** 3,
  cpus: 1,
  pids: 512,
  diskBytes: 512 * 1024 ** 2,
};

/**
 * PID 1 of every container: a shell that sleeps forever and reaps orphans while it waits, so
 * processes killed at a timeout do not stay as zombies and use up the process limit. It has no
 * signal handler, so the commands inside cannot stop it (PID 1 ignores signals it does not handle).
 */
export const keepAlive = 'while :; do sleep 3600 & wait $!; done';

/**
 * Who the commands of a container whose repository is copied in from this machine (the embedded
 * instances) run as, `uid:gid`: nobody, not the image's root. Its repository, `/root` (its HOME)
 * and the image's volumes belong to it; `/tmp` and `/var/tmp` are everyone's, as usual. A SWE-bench
 * image's own repository keeps the image's user (root), as SWE-bench recorded its tests' results.
 */
export const defaultContainerUser = '65534:65534';

/** The uid and gid of a `uid:gid` user; anything else is refused by name. */
export function parseContainerUser(user: string): { uid: number; gid: number } {
  const match = /^(\d+):(\d+)$/.exec(user);
  if (!match)
    throw new ConfigError(`container user '${user}': give it as uid:gid in numbers, e.g. ${defaultContainerUser}`, {
      code: 'bad-container-user',
    });
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

/** Directories a container can write besides its repository; the root file system is read-only. */
export const scratchDirectories = ['/tmp', '/var/tmp', '/root'] as const;

/**
 * The container of a sandbox, the same for a repository copied in from this machine and for an
 * image's own repository: no network, the resource limits, and confined as follows.
 *
 * - Disk: the root file system is read-only, and everything a command can write is an in-memory
 *   file system of `diskBytes`: the repository, the scratch directories, and every volume the image
 *   declares (`volumes`, from the image's configuration; without this the daemon would make each a
 *   volume on this machine's disk). The daemon's `/dev` and `/dev/shm` are in memory too, and
 *   the read-only root makes its `/etc/hosts` and `/etc/hostname` read-only.
 * - Privileges: processes run as `user` (`uid:gid`), or as the image's user without one. Every
 *   capability is dropped (`CapDrop: ALL`, none added back), and `no-new-privileges` stops setuid and
 *   file-capability programs from gaining any: whoever the user, it cannot bypass file permissions,
 *   change owners, make device nodes, chroot, open raw sockets or change its user or group. It
 *   writes only what it owns where it can write at all.
 */
export function containerSpec(options: {
  image: string;
  labels: Record<string, string>;
  limits: ContainerLimits;
  repoPath: string;
  /** Volumes the image declares: each gets an empty in-memory file system instead. */
  volumes?: readonly string[];
  /** Who processes run as, `uid:gid`; without it, the image's user. */
  user?: string;
}): Docker.ContainerCreateOptions {
  const { limits, user } = options;
  const owner = user === undefined ? undefined : parseContainerUser(user);
  const tmpfs = (mode: string, owned = false) =>
    `rw,exec,nosuid,nodev,size=${limits.diskBytes},mode=${mode}${owned && owner ? `,uid=${owner.uid},gid=${owner.gid}` : ''}`;
  return {
    Image: options.image,
    Cmd: ['/bin/sh', '-c', keepAlive],
    Labels: options.labels,
    // The user's home, whatever the image's passwd says (nobody's is /nonexistent).
    ...(user === undefined ? {} : { User: user, Env: ['HOME=/root'] }),
    WorkingDir: '/',
    Tty: false,
    StopTimeout: 1,
    HostConfig: {
      NetworkMode: 'none',
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: limits.pids,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      // PID 1 prints nothing; a command writing to its output would fill a log on this machine's disk.
      LogConfig: { Type: 'none', Config: {} },
      ShmSize: Math.min(limits.diskBytes, 64 * 1024 ** 2),
      ReadonlyRootfs: true,
      Tmpfs: {
        ...Object.fromEntries((options.volumes ?? []).map((path) => [path, tmpfs('755', true)])),
        [options.repoPath]: tmpfs('755', true),
        ...Object.fromEntries(
          scratchDirectories.map((path) => [path, path === '/root' ? tmpfs('700', true) : tmpfs('1777')]),
        ),
      },
    },
  };
}

/** Labels of a new container: managed, the env, the run, and the process that owns it. */
export function containerLabels(runLabel: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [sandboxLabels.managed]: 'true',
    [sandboxLabels.env]: 'swegym',
    [sandboxLabels.run]: runLabel,
    [sandboxLabels.ownerPid]: String(process.pid),
    [sandboxLabels.ownerHost]: hostname(),
    ...extra,
  };
}
