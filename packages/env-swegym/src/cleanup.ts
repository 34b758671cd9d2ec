import {
  type CleanedContainer,
  defaultDockerClient,
  dockerAvailable,
  removeSwegymContainers,
} from './docker-provider.js';
import { createLocalSandboxProvider } from './local-sandbox.js';

export interface SwegymCleanupOptions {
  /** Only what this run label made. */
  runLabel?: string;
  /** Also what live runs on this machine are using (never by default). */
  includeLive?: boolean;
}

/** What cleanup found and removed. */
export interface SwegymCleanupReport {
  /** False when no Docker daemon answered (containers were not looked for). */
  dockerReachable: boolean;
  removedContainers: CleanedContainer[];
  /** Containers of live runs (or of another machine's), left alone. */
  liveContainers: CleanedContainer[];
  /** Local sandbox directories of processes that are gone. */
  removedDirectories: number;
}

/**
 * Removes what killed SWE-Gym runs left behind: containers labelled `harness-s.env=swegym` whose
 * owner process is gone (all of them with `includeLive`), and local sandbox directories of dead
 * processes.
 */
export async function cleanupSwegym(options: SwegymCleanupOptions = {}): Promise<SwegymCleanupReport> {
  const docker = defaultDockerClient();
  const dockerReachable = await dockerAvailable(docker);
  const liveContainers: CleanedContainer[] = [];
  const removedContainers = dockerReachable
    ? await removeSwegymContainers(docker, {
        ...(options.runLabel ? { runLabel: options.runLabel } : {}),
        includeLive: options.includeLive ?? false,
        onLeftAlone: (container) => liveContainers.push(container),
      })
    : [];
  const removedDirectories = await createLocalSandboxProvider().cleanup();
  return { dockerReachable, removedContainers, liveContainers, removedDirectories };
}
