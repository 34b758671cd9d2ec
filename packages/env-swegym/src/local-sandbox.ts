import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  ConfigError,
  type ExecOptions,
  type ExecResult,
  InfrastructureError,
  InputError,
  processAlive,
} from '@harness-s/core';
import { execa, type ResultPromise } from 'execa';
import { simpleGit } from 'simple-git';
import { type GitRunner, hostGit } from './git.js';
import { HeadTailBuffer } from './output-buffer.js';
import { shellQuote } from './shell.js';
import { commandEnvironment, type SweSandbox, type SweSandboxProvider, type Workspace } from './swe-sandbox.js';

/** Temporary directories of local sandboxes are named after the process that made them. */
const directoryPrefix = 'harness-s-swegym-';

/** After a timeout kill, how long to wait for escaped processes to let go of the output pipes. */
const pipeGraceMs = 2_000;

/** The exit code a shell reports for a process killed by a signal (128 + its number). */
function signalExitCode(signal: string | undefined): number | null {
  if (!signal) return null;
  const number = (constants.signals as Record<string, number>)[signal];
  return number === undefined ? null : 128 + number;
}

/** Sends SIGKILL to a process group; a group that is gone already is fine. */
function killProcessGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // No such group any more.
  }
}

// Whether a process of this machine is still running (a zombie is not): core's, shared with run folders' locks.
export { processAlive };

/**
 * A sandbox that is a temporary directory on this machine: the repository is a `git clone
 * --shared` of a local repository, commands run as local processes in their own process group
 * (killed as a group at the timeout). It isolates episodes' files from each other, not the
 * machine from the commands: use the Docker sandbox for untrusted agents. A reset clones the
 * repository again; the pool does not reuse local sandboxes across episodes (a clone is cheap).
 */
export class LocalSandbox implements SweSandbox {
  readonly kind = 'local' as const;
  readonly image = null;
  readonly reusable = false;
  readonly repoPath: string;
  readonly scratchPath: string;
  private current: Workspace | null = null;
  private destroyed = false;
  private readonly running = new Set<ResultPromise>();
  /**
   * Every process group a command of this sandbox led. A command's background processes stay in
   * its group after it returns (`server &`); a reset or destroy kills them. Linux does not reuse a
   * number as a process id while a group of that number still has members, so killing a group whose
   * members are all gone finds nothing rather than a stranger.
   */
  private readonly groups = new Set<number>();

  constructor(
    readonly id: string,
    /** Variables every command of this sandbox gets (a PATH that skips interpreter shims). */
    private readonly baseEnvironment: Record<string, string> = {},
  ) {
    this.repoPath = join(id, 'repo');
    this.scratchPath = join(id, 'scratch');
  }

  get workspace(): Workspace | null {
    return this.current;
  }

  git(): GitRunner {
    return hostGit(this.repoPath);
  }

  private resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.repoPath, path);
  }

  private assertAlive(): void {
    if (this.destroyed) throw new InfrastructureError(`sandbox ${this.id} was destroyed`, { code: 'sandbox-gone' });
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    this.assertAlive();
    const start = performance.now();
    const stdout = new HeadTailBuffer(options.maxOutputChars);
    const stderr = new HeadTailBuffer(options.maxOutputChars);
    let subprocess: ResultPromise;
    try {
      subprocess = execa('bash', ['-c', command], {
        cwd: options.cwd ? this.resolvePath(options.cwd) : this.repoPath,
        env: { ...this.baseEnvironment, ...commandEnvironment, ...options.env },
        // Its own process group, so a timeout kills everything the command started.
        detached: true,
        buffer: false,
        reject: false,
        ...(options.stdin === undefined ? { stdin: 'ignore' as const } : { input: options.stdin }),
      });
    } catch (error) {
      throw new InfrastructureError(`cannot start bash: ${(error as Error).message}`, {
        code: 'spawn-failed',
        cause: error,
      });
    }
    subprocess.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    subprocess.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    this.running.add(subprocess);
    if (subprocess.pid !== undefined) this.groups.add(subprocess.pid);
    let timedOut = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            this.killGroup(subprocess);
            // A process that left the group (setsid) may still hold the pipes: stop reading them.
            graceTimer = setTimeout(() => {
              subprocess.stdout?.destroy();
              subprocess.stderr?.destroy();
            }, pipeGraceMs);
          }, options.timeoutMs);
    try {
      const result = await subprocess;
      return {
        exitCode: result.exitCode ?? signalExitCode(result.signal),
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        truncatedChars: stdout.truncatedChars + stderr.truncatedChars,
        durationMs: performance.now() - start,
      };
    } finally {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      this.running.delete(subprocess);
    }
  }

  private killGroup(subprocess: ResultPromise): void {
    if (subprocess.pid !== undefined) killProcessGroup(subprocess.pid);
  }

  /** Kills what every earlier command left running: their whole process groups. */
  private killLeftovers(): void {
    for (const subprocess of this.running) this.killGroup(subprocess);
    for (const group of this.groups) killProcessGroup(group);
    this.groups.clear();
  }

  async readFile(path: string): Promise<string> {
    this.assertAlive();
    try {
      return await readFile(this.resolvePath(path), 'utf8');
    } catch (error) {
      throw new InputError(`cannot read ${path} in sandbox ${this.id}: ${(error as Error).message}`, {
        code: 'sandbox-file',
        cause: error,
      });
    }
  }

  async writeFile(path: string, content: string): Promise<void> {
    this.assertAlive();
    const target = this.resolvePath(path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }

  async prepare(workspace: Workspace): Promise<void> {
    this.assertAlive();
    if (workspace.kind !== 'host') {
      throw new ConfigError(
        'the local sandbox needs a local git repository for this instance; pass localRepos (repository -> path) or use --sandbox docker',
        { code: 'no-local-repository' },
      );
    }
    this.current = null;
    await rm(this.repoPath, { recursive: true, force: true });
    await rm(this.scratchPath, { recursive: true, force: true });
    await mkdir(this.scratchPath, { recursive: true });
    try {
      await simpleGit().clone(workspace.hostRepo, this.repoPath, ['--shared', '--no-checkout', '--quiet']);
    } catch (error) {
      throw new InfrastructureError(`cannot clone ${workspace.hostRepo}: ${(error as Error).message}`, {
        code: 'workspace-failed',
        cause: error,
      });
    }
    // One shell for the rest: every process start counts when episodes open by the hundred.
    const setup = [
      `git checkout -q -f --detach ${shellQuote(workspace.baseCommit)}`,
      'git config user.email agent@harness-s.invalid',
      'git config user.name agent',
    ].join(' && ');
    const result = await this.exec(setup, { timeoutMs: 60_000 });
    if (result.exitCode !== 0) {
      throw new InfrastructureError(`cannot check out ${workspace.baseCommit} in ${this.repoPath}: ${result.stderr}`, {
        code: 'workspace-failed',
      });
    }
    this.current = workspace;
  }

  /**
   * Kills what earlier commands left running and clones the repository again from its source, so
   * nothing the commands wrote in the sandbox's directory (the repository's `.git` included) decides
   * the state it returns to.
   */
  async reset(): Promise<void> {
    this.assertAlive();
    if (!this.current)
      throw new InfrastructureError(`sandbox ${this.id} has no workspace to reset to`, { code: 'reset-failed' });
    this.killLeftovers();
    await this.prepare(this.current);
  }

  /** Local commands run on this machine, which the sandbox does not watch over. */
  async whyUnusable(): Promise<string | null> {
    return null;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.killLeftovers();
    await rm(this.id, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * The directory of the real `python3` behind a version-manager shim (pyenv, asdf), found once.
 * Shims cost a second or more per start on a busy machine and the plans start python3 often;
 * putting the interpreter's own directory first keeps the same interpreter without the shim.
 */
let interpreterDirectory: Promise<string | null> | undefined;
export function resolvePythonDirectory(): Promise<string | null> {
  interpreterDirectory ??= execa(
    'python3',
    ['-c', 'import os, sys; print(os.path.dirname(os.path.realpath(sys.executable)))'],
    {
      reject: false,
      timeout: 30_000,
    },
  ).then((result) => (result.exitCode === 0 && result.stdout.trim() ? result.stdout.trim() : null));
  return interpreterDirectory;
}

/** Creates local sandboxes in the system's temporary directory. */
export function createLocalSandboxProvider(): SweSandboxProvider {
  return {
    kind: 'local',
    async create() {
      const root = await mkdtemp(join(tmpdir(), `${directoryPrefix}${process.pid}-`));
      const python = await resolvePythonDirectory();
      return new LocalSandbox(root, python ? { PATH: `${python}${delimiter}${process.env['PATH'] ?? ''}` } : {});
    },
    /** Removes sandbox directories whose process is gone (run ids do not apply to local sandboxes). */
    async cleanup() {
      let removed = 0;
      for (const name of await readdir(tmpdir())) {
        const pid = Number(/^harness-s-swegym-(\d+)-/.exec(name)?.[1]);
        if (!Number.isInteger(pid) || processAlive(pid)) continue;
        await rm(join(tmpdir(), name), { recursive: true, force: true });
        removed += 1;
      }
      return removed;
    },
    async close() {},
  };
}
