import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { sandboxLabels, type Workspace } from './swe-sandbox.js';

/** Resource limits of a container. */
export interface ContainerLimits {
  /** Memory in bytes (swap is not allowed on top). */
  memoryBytes: number;
  /** CPUs, possibly fractional. */
  cpus: number;
  /** Processes and threads at most: a fork bomb stops here. */
  pids: number;
  /**
   * Size of each writable file system of a reusable container (the repository, `/tmp`,
   * `/var/tmp`, `/root`): in-memory file systems, so what they hold also counts against
   * `memoryBytes`, and a file written past this size fails with "No space left on device".
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

/** Directories a reusable container can write besides its repository; the root file system is read-only. */
export const scratchDirectories = ['/tmp', '/var/tmp', '/root'] as const;

/**
 * The container of a sandbox. `repository` says where its repository comes from:
 *
 * - `host` (copied in from this machine): the container is **reusable**. Its root file system is
 *   read-only and everything a command can write is an in-memory file system of `diskBytes` (the
 *   repository and the scratch directories), so a restart brings the whole container back to its
 *   image, and the repository is copied in again from this machine.
 * - `image` (the repository is inside the image, as in SWE-bench images): the container serves one
 *   episode, since what its commands change in the image's files cannot be undone in place.
 */
export function containerSpec(options: {
  image: string;
  labels: Record<string, string>;
  limits: ContainerLimits;
  repoPath: string;
  repository: Workspace['kind'];
}): Docker.ContainerCreateOptions {
  const { limits } = options;
  const tmpfs = (mode: string) => `rw,exec,nosuid,nodev,size=${limits.diskBytes},mode=${mode}`;
  const reusable = options.repository === 'host';
  return {
    Image: options.image,
    Cmd: ['/bin/sh', '-c', keepAlive],
    Labels: options.labels,
    WorkingDir: '/',
    Tty: false,
    StopTimeout: 1,
    HostConfig: {
      NetworkMode: 'none',
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: limits.pids,
      SecurityOpt: ['no-new-privileges'],
      // PID 1 prints nothing; a command writing to its output would fill a log on this machine's disk.
      LogConfig: { Type: 'none', Config: {} },
      ShmSize: Math.min(limits.diskBytes, 64 * 1024 ** 2),
      ...(reusable
        ? {
            ReadonlyRootfs: true,
            Tmpfs: {
              [options.repoPath]: tmpfs('755'),
              ...Object.fromEntries(scratchDirectories.map((path) => [path, tmpfs(path === '/root' ? '700' : '1777')])),
            },
          }
        : {}),
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
