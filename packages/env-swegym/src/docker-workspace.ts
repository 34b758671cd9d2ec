import { PassThrough, type Readable } from 'node:stream';
import { type ExecOptions, type ExecResult, InfrastructureError } from '@harness-s/core';
import type Docker from 'dockerode';
import { shellQuote } from './shell.js';
import type { Workspace } from './swe-sandbox.js';

/** Exit codes of the script that puts a repository in place, so a failure says which step failed. */
export const prepareFailures: Record<number, string> = {
  90: 'the container setup (scratch directory, git configuration) failed',
  91: 'the repository directory cannot be cleared',
  92: 'the repository cannot be copied in',
  93: 'the base commit cannot be checked out',
  94: 'HEAD is not the base commit after the checkout',
};

/**
 * Unpacks a tar stream from standard input into the current directory. Files belong to whoever
 * unpacks them: commands run without CAP_CHOWN, so the owners recorded in the stream (the user of
 * this machine, or the image's) cannot be given back, and are not asked for.
 */
export const untar = 'tar -x --no-same-owner -f -';

/** What a fresh container needs before a repository goes in: the scratch directory, git's identity. */
export function containerSetupScript(scratchPath: string, repoPath: string): string {
  return [
    `mkdir -p ${scratchPath} ${shellQuote(repoPath)}`,
    "git config --global --replace-all safe.directory '*'",
    'git config --global user.email agent@harness-s.invalid',
    'git config --global user.name agent',
  ].join(' && ');
}

/**
 * The script that puts a workspace's repository at its base commit: after `setup` if given (a
 * restarted container starts without it); a repository from this machine comes in whole as a tar
 * stream on standard input; one that is there already is checked out at the base commit if need be.
 */
export function installScript(workspace: Workspace, repoPath: string, setup: string | null): string {
  const repo = shellQuote(repoPath);
  const base = shellQuote(workspace.baseCommit);
  return [
    setup ? `{ ${setup}; } || exit 90` : '',
    `cd ${repo} || exit 91`,
    workspace.kind === 'host' ? 'find . -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + || exit 91' : '',
    workspace.kind === 'host' ? `${untar} || exit 92` : '',
    `test "$(git rev-parse HEAD)" = ${base} || git checkout -q -f --detach ${base} || exit 93`,
    `test "$(git rev-parse HEAD)" = ${base} || exit 94`,
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** Runs a script in a container with a stream as its standard input, opened once the script runs. */
export type RunWithInput = (script: string, options: ExecOptions, openInput: () => Readable) => Promise<ExecResult>;

/**
 * Copies the image's own repository into the container's repository file system, which hides it
 * from commands, as a tar stream into `tar -x` inside. The daemon reads a container's paths from its
 * image layers, which no in-memory file system covers and the read-only root keeps as the image
 * made them. An image without a repository there leaves the file system empty (preparing the
 * workspace then says that the base commit is missing).
 */
export async function copyImageRepository(
  container: Docker.Container,
  options: { image: string; repoPath: string; diskBytes: number },
  run: RunWithInput,
): Promise<void> {
  const failed = (error: unknown) =>
    new InfrastructureError(`cannot read the image's repository at ${options.repoPath}: ${(error as Error).message}`, {
      code: 'container-setup-failed',
      cause: error,
    });
  try {
    await container.infoArchive({ path: options.repoPath });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return;
    throw failed(error);
  }
  // The daemon holds the container's lock until the archive's stream is closed, and a new exec
  // needs that lock: the archive is asked for only once `tar` runs, and closed right after.
  let archive: Readable | undefined;
  let archiveError: unknown;
  let closed = false;
  const input = new PassThrough();
  const open = () => {
    container.getArchive({ path: options.repoPath }).then(
      (stream) => {
        archive = stream as Readable;
        archive.on('error', (error) => {
          archiveError ??= closed ? undefined : error;
          input.end();
        });
        archive.pipe(input);
      },
      (error: unknown) => {
        archiveError = error;
        input.end();
      },
    );
    return input;
  };
  let result: ExecResult;
  try {
    // The stream's first level is the repository's directory itself: the file system's root here.
    result = await run(`${untar} --strip-components=1`, { timeoutMs: 600_000, cwd: options.repoPath }, open);
  } finally {
    closed = true;
    archive?.destroy();
  }
  if (archiveError) throw failed(archiveError);
  if (result.exitCode === 0) return;
  const output = `${result.stderr}${result.stdout}`;
  if (/No space left on device/.test(output)) {
    throw new InfrastructureError(
      `the repository of ${options.image} at ${options.repoPath} does not fit in its file system of ${options.diskBytes} bytes (limits.diskBytes, which also bounds what commands write there); raise limits.diskBytes, and limits.memoryBytes, which that file system counts against`,
      { code: 'repository-too-large', retryable: false },
    );
  }
  throw new InfrastructureError(
    `cannot copy the repository of ${options.image} at ${options.repoPath} into its file system: ${output.trim().slice(-2000)}`,
    { code: 'container-setup-failed' },
  );
}

/** The volumes an image declares (`VOLUME`), which a container would otherwise get on this machine's disk. */
export async function imageVolumes(docker: Docker, image: string): Promise<string[]> {
  const info = await docker.getImage(image).inspect();
  return Object.keys(info.Config?.Volumes ?? {});
}
