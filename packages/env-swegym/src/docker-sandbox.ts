import { hostname } from 'node:os';
import { type Duplex, PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ConfigError, type ExecOptions, type ExecResult, InfrastructureError, InputError } from '@harness-s/core';
import type Docker from 'dockerode';
import { execa } from 'execa';
import { type GitRunner, sandboxGit } from './git.js';
import { HeadTailBuffer } from './output-buffer.js';
import { shellQuote } from './shell.js';
import {
  baselineScript,
  commandEnvironment,
  describeResetFailure,
  resetScript,
  type SweSandbox,
  sandboxLabels,
  type Workspace,
} from './swe-sandbox.js';

/** Resource limits of a container. */
export interface ContainerLimits {
  /** Memory in bytes (swap is not allowed on top). */
  memoryBytes: number;
  /** CPUs, possibly fractional. */
  cpus: number;
  /** Processes and threads at most: a fork bomb stops here. */
  pids: number;
}

export const defaultContainerLimits: ContainerLimits = { memoryBytes: 1024 ** 3, cpus: 1, pids: 512 };

/**
 * PID 1 of every container: a shell that sleeps forever and reaps orphans while it waits, so
 * processes killed at a timeout do not stay as zombies and use up the process limit. It survives
 * `kill -9 -1` (PID 1 ignores signals it has no handler for), which a reset uses.
 */
const keepAlive = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done';

/** After an in-container timeout, how long the stream may stay open before it is cut here. */
const streamGraceMs = 5_000;

const scratchPath = '/tmp/harness-s';

/**
 * Processes a container may have right after a reset killed everything: PID 1, its sleep, the
 * reset's shell and the two processes of the check itself, with room for one being reaped.
 */
const maxProcessesAfterKill = 8;

/** Whether an error from the Docker API means the daemon or the container is gone. */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: string; statusCode?: number }).code;
  const status = (error as { statusCode?: number }).statusCode;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EPIPE' || status === 404 || status === 409;
}

/**
 * A sandbox that is one Docker container: no network (`NetworkMode: 'none'`), memory, CPU and
 * process limits, labels that name its run and owner process. Commands run through `docker exec`
 * in a fresh `bash -c`, under `timeout -s KILL`, which kills the command's whole process group.
 */
export class DockerSandbox implements SweSandbox {
  readonly kind = 'docker' as const;
  readonly scratchPath = scratchPath;
  private current: Workspace | null = null;
  private destroyed = false;
  private readonly streams = new Set<Duplex>();

  private constructor(
    private readonly container: Docker.Container,
    readonly id: string,
    readonly image: string,
    readonly repoPath: string,
  ) {}

  /** Creates and starts a container; a container that was created but could not start is removed. */
  static async start(
    docker: Docker,
    options: { image: string; labels: Record<string, string>; limits: ContainerLimits; repoPath?: string },
  ): Promise<DockerSandbox> {
    let container: Docker.Container | undefined;
    try {
      container = await docker.createContainer({
        Image: options.image,
        Cmd: ['/bin/sh', '-c', keepAlive],
        Labels: options.labels,
        WorkingDir: '/',
        Tty: false,
        StopTimeout: 1,
        HostConfig: {
          NetworkMode: 'none',
          Memory: options.limits.memoryBytes,
          MemorySwap: options.limits.memoryBytes,
          NanoCpus: Math.round(options.limits.cpus * 1e9),
          PidsLimit: options.limits.pids,
          SecurityOpt: ['no-new-privileges'],
        },
      });
      await container.start();
    } catch (error) {
      await container?.remove({ force: true }).catch(() => undefined);
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404) {
        throw new ConfigError(
          `docker image ${options.image} not found; build it with .ci/docker.sh (embedded instances) or pull the instance's image`,
          { code: 'image-missing', cause: error },
        );
      }
      throw new InfrastructureError(`cannot start a container from ${options.image}: ${(error as Error).message}`, {
        code: 'container-start-failed',
        cause: error,
      });
    }
    const sandbox = new DockerSandbox(container, container.id, options.image, options.repoPath ?? '/testbed');
    const setup = await sandbox.exec(
      [
        `mkdir -p ${scratchPath} ${shellQuote(sandbox.repoPath)}`,
        "git config --global --add safe.directory '*'",
        'git config --global user.email agent@harness-s.invalid',
        'git config --global user.name agent',
      ].join(' && '),
      { timeoutMs: 60_000, cwd: '/' },
    );
    if (setup.exitCode !== 0) {
      await sandbox.destroy();
      throw new InfrastructureError(`container setup failed in ${options.image}: ${setup.stdout}${setup.stderr}`, {
        code: 'container-setup-failed',
      });
    }
    return sandbox;
  }

  get workspace(): Workspace | null {
    return this.current;
  }

  git(): GitRunner {
    return sandboxGit((command, options) => this.exec(command, options), this.repoPath);
  }

  private assertAlive(): void {
    if (this.destroyed)
      throw new InfrastructureError(`container ${this.id.slice(0, 12)} was removed`, { code: 'sandbox-gone' });
  }

  exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    return this.run(command, options, true);
  }

  /**
   * Runs `bash -c command`. With `killInside`, the timeout is enforced in the container by
   * `timeout -s KILL`; without it (a reset, which kills every other process itself and so must be
   * the exec's main process), only the stream backstop here applies.
   */
  private async run(command: string, options: ExecOptions, killInside: boolean): Promise<ExecResult> {
    this.assertAlive();
    const start = performance.now();
    const environment = { ...commandEnvironment, ...options.env };
    const seconds = options.timeoutMs === undefined ? undefined : Math.max(options.timeoutMs / 1000, 0.001);
    // `timeout` (not --foreground) puts the command in its own process group and kills the group.
    const argv =
      seconds === undefined || !killInside
        ? ['bash', '-c', command]
        : ['timeout', '-s', 'KILL', String(seconds), 'bash', '-c', command];
    const stdout = new HeadTailBuffer(options.maxOutputChars);
    const stderr = new HeadTailBuffer(options.maxOutputChars);
    let streamCut = false;
    try {
      const exec = await this.container.exec({
        Cmd: argv,
        AttachStdout: true,
        AttachStderr: true,
        AttachStdin: options.stdin !== undefined,
        WorkingDir: options.cwd ?? this.repoPath,
        Env: Object.entries(environment).map(([name, value]) => `${name}=${value}`),
      });
      const stream = (await exec.start({ hijack: true, stdin: options.stdin !== undefined })) as Duplex;
      this.streams.add(stream);
      const out = new PassThrough();
      const err = new PassThrough();
      out.on('data', (chunk: Buffer) => stdout.push(chunk));
      err.on('data', (chunk: Buffer) => stderr.push(chunk));
      this.container.modem.demuxStream(stream, out, err);
      if (options.stdin !== undefined) stream.end(options.stdin);
      // A backstop for processes that escaped the group and keep the stream open.
      const backstop =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => {
                streamCut = true;
                stream.destroy();
              },
              options.timeoutMs + (killInside ? streamGraceMs : 0),
            );
      try {
        await new Promise<void>((resolve, reject) => {
          stream.once('end', resolve);
          stream.once('close', resolve);
          stream.once('error', (error) => (streamCut || this.destroyed ? resolve() : reject(error)));
        });
        // The demultiplexed copies may still hold the last chunks: let them drain.
        out.end();
        err.end();
        await Promise.all([finished(out), finished(err)]);
      } finally {
        clearTimeout(backstop);
        this.streams.delete(stream);
      }
      this.assertAlive();
      const info = streamCut ? { ExitCode: null } : await exec.inspect();
      const exitCode = info.ExitCode ?? null;
      const durationMs = performance.now() - start;
      return {
        exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut: streamCut || (options.timeoutMs !== undefined && exitCode === 137 && durationMs >= options.timeoutMs),
        truncatedChars: stdout.truncatedChars + stderr.truncatedChars,
        durationMs,
      };
    } catch (error) {
      if (InfrastructureError.isInstance(error)) throw error;
      throw new InfrastructureError(
        `docker exec in ${this.id.slice(0, 12)} failed${isUnavailable(error) ? ' (container or daemon gone)' : ''}: ${(error as Error).message}`,
        { code: 'exec-failed', cause: error },
      );
    }
  }

  async readFile(path: string): Promise<string> {
    const result = await this.exec(`cat -- ${shellQuote(this.absolute(path))}`, { timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      throw new InputError(`cannot read ${path} in container ${this.id.slice(0, 12)}: ${result.stderr.trim()}`, {
        code: 'sandbox-file',
      });
    }
    return result.stdout;
  }

  async writeFile(path: string, content: string): Promise<void> {
    const target = shellQuote(this.absolute(path));
    const result = await this.exec(`mkdir -p "$(dirname ${target})" && cat > ${target}`, {
      stdin: content,
      timeoutMs: 60_000,
    });
    if (result.exitCode !== 0) {
      throw new InputError(`cannot write ${path} in container ${this.id.slice(0, 12)}: ${result.stderr.trim()}`, {
        code: 'sandbox-file',
      });
    }
  }

  private absolute(path: string): string {
    return path.startsWith('/') ? path : `${this.repoPath}/${path}`;
  }

  async prepare(workspace: Workspace): Promise<void> {
    this.assertAlive();
    this.current = null;
    if (workspace.repoPath !== this.repoPath) {
      throw new ConfigError(`workspace at ${workspace.repoPath} but the container's repository is ${this.repoPath}`, {
        code: 'repo-path-mismatch',
      });
    }
    if (workspace.kind === 'host') {
      const clear = await this.exec(`rm -rf ${shellQuote(this.repoPath)} && mkdir -p ${shellQuote(this.repoPath)}`, {
        timeoutMs: 60_000,
      });
      if (clear.exitCode !== 0)
        throw new InfrastructureError(`cannot clear ${this.repoPath}: ${clear.stderr}`, { code: 'workspace-failed' });
      // The repository (with its .git) goes in as a tar stream; the host's `tar` makes it.
      const tar = execa('tar', ['-C', workspace.hostRepo, '-cf', '-', '.'], { buffer: false, stdout: 'pipe' });
      try {
        await this.container.putArchive(tar.stdout as NodeJS.ReadableStream, { path: this.repoPath });
        await tar;
      } catch (error) {
        tar.kill();
        throw new InfrastructureError(
          `cannot copy ${workspace.hostRepo} into the container: ${(error as Error).message}`,
          {
            code: 'workspace-failed',
            cause: error,
          },
        );
      }
    }
    // An image's repository is used as the image has it (possibly with changes made while
    // installing), unless it is not at the base commit; a copied one is checked out.
    const base = shellQuote(workspace.baseCommit);
    const checkout = await this.exec(
      `cd ${shellQuote(this.repoPath)} && { test "$(git rev-parse HEAD)" = ${base} || git checkout -q -f --detach ${base}; } && ${baselineScript(this.repoPath, scratchPath)}`,
      { timeoutMs: 120_000 },
    );
    if (checkout.exitCode !== 0) {
      throw new InfrastructureError(
        `cannot check out ${workspace.baseCommit} in ${this.image}: ${checkout.stderr.trim()}`,
        {
          code: 'workspace-failed',
        },
      );
    }
    this.current = workspace;
  }

  async reset(): Promise<void> {
    this.assertAlive();
    if (!this.current)
      throw new InfrastructureError(`container ${this.id.slice(0, 12)} has no workspace`, { code: 'reset-failed' });
    // Every process but PID 1 and this shell goes first: background servers, escaped daemons, and
    // the survivors of a fork bomb, which may fork while being killed, hence the rounds and the check.
    const script = [
      'for round in 1 2 3 4 5; do kill -9 -1 2>/dev/null; sleep 0.05; done',
      `test "$(ls -d /proc/[0-9]* | wc -l)" -le ${maxProcessesAfterKill} || exit 96`,
      resetScript(this.repoPath, this.current.baseCommit, scratchPath),
    ].join('\n');
    const result = await this.run(script, { timeoutMs: 120_000 }, false);
    if (result.exitCode !== 0) {
      throw new InfrastructureError(
        `reset of container ${this.id.slice(0, 12)} failed: ${describeResetFailure(result.exitCode)}`,
        { code: 'reset-failed' },
      );
    }
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const stream of this.streams) stream.destroy();
    try {
      await this.container.remove({ force: true, v: true });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) {
        throw new InfrastructureError(`cannot remove container ${this.id.slice(0, 12)}: ${(error as Error).message}`, {
          code: 'container-remove-failed',
          cause: error,
        });
      }
    }
  }
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
