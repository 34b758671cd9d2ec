import { type Duplex, PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ConfigError, type ExecOptions, type ExecResult, InfrastructureError, InputError } from '@harness-s/core';
import type Docker from 'dockerode';
import { execa, type ResultPromise } from 'execa';
import { containerUnusableReason } from './container-health.js';
import { type ContainerLimits, containerSpec, defaultContainerUser } from './container-spec.js';
import {
  containerSetupScript,
  copyImageRepository,
  imageVolumes,
  installScript,
  prepareFailures,
} from './docker-workspace.js';
import { InputGate } from './exec-input.js';
import { type GitRunner, sandboxGit } from './git.js';
import { HeadTailBuffer } from './output-buffer.js';
import { shellQuote } from './shell.js';
import { commandEnvironment, SandboxUnusableError, type SweSandbox, type Workspace } from './swe-sandbox.js';

/** After an in-container timeout, how long the stream may stay open before it is cut here. */
const streamGraceMs = 5_000;

const scratchPath = '/tmp/harness-s';

/** Whether an error from the Docker API means the daemon or the container is gone. */
function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: string; statusCode?: number }).code;
  const status = (error as { statusCode?: number }).statusCode;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EPIPE' || status === 404 || status === 409;
}

/**
 * A sandbox that is one Docker container: no network (`NetworkMode: 'none'`), memory, CPU and
 * process limits, no capabilities, labels that name its run and owner process. Commands run
 * through `docker exec` in a fresh `bash -c`, under `timeout -s KILL`, which kills the command's
 * whole process group.
 *
 * Its root file system is read-only and what commands can write lives in size-limited in-memory
 * file systems (`containerSpec`). A container made for a repository copied in from this machine is
 * reusable: a reset restarts it (every process and every written file gone) and copies the
 * repository in again. A container of an image's repository gets that repository copied from the
 * image into its repository file system at start, and serves one episode.
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
    readonly reusable: boolean,
  ) {}

  /** Creates and starts a container; a container that was created but could not start is removed. */
  static async start(
    docker: Docker,
    options: {
      image: string;
      labels: Record<string, string>;
      limits: ContainerLimits;
      repoPath?: string;
      /** Where the repository will come from (default `host`: copied in; the container is reusable). */
      repository?: Workspace['kind'];
      /**
       * Who commands run as, `uid:gid`; by default nobody for a repository copied in, the image's
       * user for an image's own repository (`defaultContainerUser`).
       */
      user?: string;
    },
  ): Promise<DockerSandbox> {
    const repoPath = options.repoPath ?? '/testbed';
    const repository = options.repository ?? 'host';
    let container: Docker.Container | undefined;
    try {
      const volumes = await imageVolumes(docker, options.image);
      const user = options.user ?? (repository === 'host' ? defaultContainerUser : undefined);
      container = await docker.createContainer(
        containerSpec({ ...options, repoPath, volumes, ...(user === undefined ? {} : { user }) }),
      );
      await container.start();
    } catch (error) {
      await container?.remove({ force: true }).catch(() => undefined);
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404) {
        throw new ConfigError(
          `docker image ${options.image} not found; for the embedded instances build it with .ci/docker.sh (HARNESS_S_SWEGYM_IMAGE names the image it builds, and the one used), for a SWE-Gym instance pull its image`,
          { code: 'image-missing', cause: error },
        );
      }
      throw new InfrastructureError(`cannot start a container from ${options.image}: ${(error as Error).message}`, {
        code: 'container-start-failed',
        cause: error,
      });
    }
    const sandbox = new DockerSandbox(container, container.id, options.image, repoPath, repository === 'host');
    try {
      const setup = await sandbox.exec(containerSetupScript(scratchPath, repoPath), { timeoutMs: 60_000, cwd: '/' });
      if (setup.exitCode !== 0) {
        throw new InfrastructureError(`container setup failed in ${options.image}: ${setup.stdout}${setup.stderr}`, {
          code: 'container-setup-failed',
        });
      }
      if (repository === 'image') {
        const copy = { image: options.image, repoPath, diskBytes: options.limits.diskBytes };
        await copyImageRepository(container, copy, (script, exec, input) => sandbox.run(script, exec, input));
      }
    } catch (error) {
      await sandbox.destroy();
      throw error;
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
    return this.run(command, options);
  }

  /**
   * Runs `bash -c command` under `timeout -s KILL` in the container, with `options.stdin` (a
   * string) or the stream `openInput` opens (once the command is running) as its standard input.
   */
  private async run(command: string, options: ExecOptions, openInput?: () => Readable): Promise<ExecResult> {
    this.assertAlive();
    const start = performance.now();
    const environment = { ...commandEnvironment, ...options.env };
    const seconds = options.timeoutMs === undefined ? undefined : Math.max(options.timeoutMs / 1000, 0.001);
    const withStdin = options.stdin !== undefined || openInput !== undefined;
    // The exec's stream, once started, and the input piped into it.
    let attached: Duplex | undefined;
    let input: Readable | undefined;
    const gate = withStdin
      ? new InputGate(() => {
          if (!attached) return;
          if (openInput) {
            // The command may end before reading all of its input: writes after that are not errors.
            attached.on('error', () => {});
            input = openInput();
            input.pipe(attached);
          } else attached.end(options.stdin);
        })
      : null;
    const script = gate ? gate.wrap(command) : command;
    // `timeout` (not --foreground) puts the command in its own process group and kills the group.
    const argv =
      seconds === undefined ? ['bash', '-c', script] : ['timeout', '-s', 'KILL', String(seconds), 'bash', '-c', script];
    const stdout = new HeadTailBuffer(options.maxOutputChars);
    const stderr = new HeadTailBuffer(options.maxOutputChars);
    let streamCut = false;
    try {
      const exec = await this.container.exec({
        Cmd: argv,
        AttachStdout: true,
        AttachStderr: true,
        AttachStdin: withStdin,
        WorkingDir: options.cwd ?? this.repoPath,
        Env: Object.entries(environment).map(([name, value]) => `${name}=${value}`),
      });
      const stream = (await exec.start({ hijack: true, stdin: withStdin })) as Duplex;
      attached = stream;
      this.streams.add(stream);
      const out = new PassThrough();
      const err = new PassThrough();
      out.on('data', (chunk: Buffer) => stdout.push(chunk));
      err.on('data', (chunk: Buffer) => stderr.push(gate ? gate.filter(chunk) : chunk));
      this.container.modem.demuxStream(stream, out, err);
      // A backstop for processes that escaped the group and keep the stream open.
      const backstop =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              streamCut = true;
              stream.destroy();
            }, options.timeoutMs + streamGraceMs);
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
        if (gate) stderr.push(gate.flush());
      } finally {
        clearTimeout(backstop);
        this.streams.delete(stream);
        // What the command left unread is dropped, so the process writing it can end.
        input?.unpipe(stream);
        input?.resume();
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
      const reason = isUnavailable(error) ? await this.whyUnusable() : null;
      if (reason) throw new SandboxUnusableError(this.id.slice(0, 12), reason);
      throw new InfrastructureError(
        `docker exec in ${this.id.slice(0, 12)} failed${isUnavailable(error) ? ' (container or daemon gone)' : ''}: ${(error as Error).message}`,
        { code: 'exec-failed', cause: error },
      );
    }
  }

  /**
   * Asks the daemon, outside the container, whether the container can still run commands
   * (`containerUnusableReason`).
   */
  async whyUnusable(): Promise<string | null> {
    return this.destroyed ? null : containerUnusableReason(this.container);
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
    await this.install(workspace, false);
  }

  /**
   * Puts the workspace's repository in place at its base commit, after the container setup when
   * `setup` (a restarted container starts without it). A repository from this machine is copied in
   * whole, as a tar stream into `tar -x` inside (in-memory file systems take no `docker cp`); an
   * image's repository is used as the container got it from the image at start, checked out at the
   * base commit if need be.
   */
  private async install(workspace: Workspace, setup: boolean): Promise<void> {
    this.assertAlive();
    if (workspace.repoPath !== this.repoPath) {
      throw new ConfigError(`workspace at ${workspace.repoPath} but the container's repository is ${this.repoPath}`, {
        code: 'repo-path-mismatch',
      });
    }
    if (workspace.kind === 'image' && this.reusable) {
      throw new ConfigError(
        `container ${this.id.slice(0, 12)} was made for a repository copied in from this machine; an image's repository needs a container made for it (repository: 'image')`,
        { code: 'workspace-kind-mismatch' },
      );
    }
    this.current = null;
    const script = installScript(
      workspace,
      this.repoPath,
      setup ? containerSetupScript(scratchPath, this.repoPath) : null,
    );
    // The repository (with its .git) goes in as a tar stream; the host's `tar` makes it.
    const source = workspace.kind === 'host' ? workspace.hostRepo : 'the repository';
    let tar: ResultPromise<{ buffer: { stdout: false }; reject: false }> | undefined;
    const openInput =
      workspace.kind === 'host'
        ? () => {
            tar = execa('tar', ['-C', workspace.hostRepo, '-cf', '-', '.'], {
              buffer: { stdout: false },
              reject: false,
            });
            return tar.stdout;
          }
        : undefined;
    let result: ExecResult;
    try {
      result = await this.run(script, { timeoutMs: 120_000, cwd: '/' }, openInput);
    } catch (error) {
      tar?.kill();
      throw error;
    }
    if (result.exitCode !== 0) tar?.kill();
    const packed = await tar;
    if (result.exitCode === 0 && packed && packed.exitCode !== 0) {
      throw new InfrastructureError(
        `cannot copy ${source} into container ${this.id.slice(0, 12)}: tar exited ${packed.exitCode}: ${String(packed.stderr).trim()}`,
        { code: 'workspace-failed' },
      );
    }
    if (result.exitCode !== 0) {
      const step = prepareFailures[result.exitCode ?? -1] ?? `exit code ${result.exitCode}`;
      throw new InfrastructureError(
        `cannot put ${source} at ${workspace.baseCommit} in container ${this.id.slice(0, 12)} (${this.image}): ${step}: ${(result.stderr || result.stdout).trim().slice(-2000)}`,
        { code: 'workspace-failed' },
      );
    }
    this.current = workspace;
  }

  /**
   * Restarts the container, which ends every process in it (a fork bomb included) and empties every
   * file system its commands could write, then copies the repository in again from this machine:
   * nothing an episode wrote reaches the next one. A container of an image's repository cannot be
   * brought back in place: its reset is refused (code `reset-unsupported`).
   */
  async reset(): Promise<void> {
    this.assertAlive();
    const workspace = this.current;
    if (!workspace)
      throw new InfrastructureError(`container ${this.id.slice(0, 12)} has no workspace`, { code: 'reset-failed' });
    if (!this.reusable) {
      throw new InfrastructureError(
        `container ${this.id.slice(0, 12)} holds ${this.image}'s own repository, which cannot be restored in place; it serves one episode`,
        { code: 'reset-unsupported', retryable: false },
      );
    }
    for (const stream of this.streams) stream.destroy();
    try {
      await this.container.restart({ t: 0 });
    } catch (error) {
      throw new InfrastructureError(`cannot restart container ${this.id.slice(0, 12)}: ${(error as Error).message}`, {
        code: 'reset-failed',
        cause: error,
      });
    }
    await this.install(workspace, true);
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
