import { hostname } from 'node:os';
import { ConfigError, InfrastructureError } from '@harness-s/core';
import Docker from 'dockerode';
import { type ContainerLimits, defaultContainerLimits, parseContainerUser } from './container-spec.js';
import { DockerSandbox } from './docker-sandbox.js';
import { processAlive } from './local-sandbox.js';
import { type SweSandboxProvider, sandboxLabels } from './swe-sandbox.js';

export interface DockerProviderOptions {
  /** A dockerode client; by default one for the local daemon (DOCKER_HOST or the default socket). */
  docker?: Docker;
  limits?: Partial<ContainerLimits>;
  /** Where the repository is inside the images (SWE-bench: `/testbed`). */
  repoPath?: string;
  /**
   * Who commands run as, `uid:gid`, e.g. `0:0`; by default nobody (`65534:65534`) where the
   * repository is copied in, the image's user (root) in a SWE-bench image's own repository.
   */
  user?: string;
}

/** A client for the local Docker daemon, from DOCKER_HOST or the default socket. */
export const defaultDockerClient = (): Docker => new Docker();

/**
 * Fails with a clear message when the Docker daemon cannot be reached: an infrastructure error, as
 * for any service that is down, so the attempt is recorded unscored and a run whose every attempt
 * meets it stops naming it (exit 1).
 */
export async function assertDockerReachable(docker: Docker): Promise<void> {
  try {
    await docker.ping();
  } catch (error) {
    throw new InfrastructureError(
      `Docker is not reachable (${(error as Error).message}); start the daemon (see .ci/docker.sh) or use --sandbox local`,
      { code: 'docker-unreachable', cause: error },
    );
  }
}

/** Whether Docker answers, for tests that skip without it. */
export async function dockerAvailable(docker: Docker = defaultDockerClient()): Promise<boolean> {
  try {
    await docker.ping();
    return true;
  } catch {
    return false;
  }
}

/** Whether an image is present locally. */
export async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/** Creates Docker sandboxes; `cleanup(runLabel)` removes the containers of one run. */
export function createDockerSandboxProvider(
  options: DockerProviderOptions = {},
): SweSandboxProvider & { docker: Docker } {
  const docker = options.docker ?? defaultDockerClient();
  const limits = { ...defaultContainerLimits, ...options.limits };
  if (options.user !== undefined) parseContainerUser(options.user);
  let reachable: Promise<void> | undefined;
  return {
    kind: 'docker',
    docker,
    async create({ image, labels = {}, repository }) {
      if (!image) throw new ConfigError('a docker sandbox needs an image', { code: 'no-image' });
      // Asked once while it answers; a daemon that did not is asked again by the next episode.
      reachable ??= assertDockerReachable(docker).catch((error: unknown) => {
        reachable = undefined;
        throw error;
      });
      await reachable;
      return DockerSandbox.start(docker, {
        image,
        labels,
        limits,
        ...(repository ? { repository } : {}),
        ...(options.repoPath ? { repoPath: options.repoPath } : {}),
        ...(options.user ? { user: options.user } : {}),
      });
    },
    async cleanup(runLabel?: string) {
      const removed = await removeSwegymContainers(docker, { ...(runLabel ? { runLabel } : {}), includeLive: true });
      return removed.length;
    },
    async close() {},
  };
}

export interface ContainerCleanupOptions {
  /** Only the containers of this run label. */
  runLabel?: string;
  /**
   * Also containers whose owner process is still running on this machine (a run in progress).
   * Off by default, so cleanup never pulls containers from under a live run.
   */
  includeLive?: boolean;
  /** Told of each container left alone because its run is live (or owned by another machine). */
  onLeftAlone?: (container: CleanedContainer) => void;
}

/** A container that cleanup removed or kept. */
export interface CleanedContainer {
  id: string;
  run: string;
  ownerPid: number | null;
  /** The machine whose process owns it, when that is not this one. */
  ownerHost?: string;
}

/**
 * Removes leftover SWE-Gym containers by label: those whose owner process on this machine is gone
 * (killed with SIGKILL, crashed), or every one with `includeLive`. Returns the removed containers.
 */
export async function removeSwegymContainers(
  docker: Docker,
  options: ContainerCleanupOptions = {},
): Promise<CleanedContainer[]> {
  const labelFilters = [`${sandboxLabels.managed}=true`, `${sandboxLabels.env}=swegym`];
  if (options.runLabel) labelFilters.push(`${sandboxLabels.run}=${options.runLabel}`);
  const containers = await docker.listContainers({ all: true, filters: { label: labelFilters } });
  const removed: CleanedContainer[] = [];
  const here = hostname();
  for (const info of containers) {
    const labels = info.Labels ?? {};
    const ownerPid = Number(labels[sandboxLabels.ownerPid]);
    const ownedHere = labels[sandboxLabels.ownerHost] === here && Number.isInteger(ownerPid);
    // A container owned by another machine cannot be judged here, so it counts as live.
    const live = !ownedHere || (ownerPid !== process.pid && processAlive(ownerPid));
    const container: CleanedContainer = {
      id: info.Id,
      run: labels[sandboxLabels.run] ?? '',
      ownerPid: Number.isInteger(ownerPid) ? ownerPid : null,
      ...(labels[sandboxLabels.ownerHost] !== here ? { ownerHost: labels[sandboxLabels.ownerHost] ?? 'unknown' } : {}),
    };
    if (live && !options.includeLive) {
      options.onLeftAlone?.(container);
      continue;
    }
    try {
      await docker.getContainer(info.Id).remove({ force: true, v: true });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
    removed.push(container);
  }
  return removed;
}
