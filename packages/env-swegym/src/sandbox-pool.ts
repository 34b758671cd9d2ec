import { describeError, InfrastructureError } from '@harness-s/core';
import { type SweSandbox, type SweSandboxProvider, type Workspace, workspaceKey } from './swe-sandbox.js';

export interface SandboxPoolOptions {
  provider: SweSandboxProvider;
  /**
   * Keep sandboxes warm between episodes and reset them instead of making new ones (Docker, where a
   * new container costs seconds and a reset a fraction of one). Off: a new sandbox per episode.
   */
  reuse: boolean;
  /** Idle sandboxes kept at most; the oldest beyond this are destroyed. */
  maxIdle: number;
  /** Labels of new sandboxes (containers). */
  labels: Record<string, string>;
}

/** Counts for tests and reports. */
export interface PoolStats {
  created: number;
  reused: number;
  retargeted: number;
  destroyed: number;
  resetFailures: number;
}

/**
 * Warm sandboxes, handed out one episode at a time. Only a reusable sandbox (whose reset brings
 * back everything an episode can change) is kept: it comes back reset, and one whose reset fails is
 * destroyed rather than reused; any other sandbox is destroyed after its episode. A reusable sandbox
 * of the right image but another workspace is re-prepared (the embedded instances share one
 * image), which is still far cheaper than a new container.
 */
export class SandboxPool {
  private idle: SweSandbox[] = [];
  private readonly busy = new Set<SweSandbox>();
  /** Set by destroyAll: a sandbox made or returned afterwards (work still in flight) is destroyed. */
  private closed = false;
  /** Discards under way, awaited by destroyAll. */
  private readonly discarding = new Set<Promise<void>>();
  /**
   * Sandboxes being made, awaited by destroyAll: an interrupted episode stops waiting for its
   * sandbox, but the container is made all the same and must not outlive the pool.
   */
  private readonly making = new Set<Promise<SweSandbox>>();
  /** Releases under way (a reset in flight), awaited by destroyAll. */
  private readonly releasing = new Set<Promise<void>>();
  readonly stats: PoolStats = { created: 0, reused: 0, retargeted: 0, destroyed: 0, resetFailures: 0 };

  constructor(private readonly options: SandboxPoolOptions) {}

  /** Sandboxes handed out and not yet released. */
  get inUse(): number {
    return this.busy.size;
  }

  get idleCount(): number {
    return this.idle.length;
  }

  /** A sandbox at the workspace's initial state. */
  async acquire(image: string | undefined, workspace: Workspace, signal?: AbortSignal): Promise<SweSandbox> {
    signal?.throwIfAborted();
    if (this.options.reuse) {
      const key = workspaceKey(workspace);
      const sameImage = (sandbox: SweSandbox) => (sandbox.image ?? undefined) === image;
      const exact = this.idle.find(
        (sandbox) => sameImage(sandbox) && sandbox.workspace && workspaceKey(sandbox.workspace) === key,
      );
      if (exact) {
        this.take(exact);
        this.stats.reused += 1;
        return exact;
      }
      // Idle sandboxes are reusable ones, which hold a repository copied in: another one can replace it.
      const other =
        workspace.kind === 'host'
          ? this.idle.find((sandbox) => sameImage(sandbox) && sandbox.repoPath === workspace.repoPath)
          : undefined;
      if (other) {
        this.take(other);
        try {
          await other.prepare(workspace);
          this.stats.retargeted += 1;
          return other;
        } catch {
          // A sandbox that cannot take the workspace is dropped; a fresh one follows.
          this.busy.delete(other);
          await this.discard(other);
        }
      }
    }
    const making = this.make(image, workspace.kind);
    this.making.add(making);
    void making.then(
      () => this.making.delete(making),
      () => this.making.delete(making),
    );
    const sandbox = await making;
    this.busy.add(sandbox);
    try {
      signal?.throwIfAborted();
      await sandbox.prepare(workspace);
    } catch (error) {
      this.busy.delete(sandbox);
      await this.discard(sandbox);
      throw error;
    }
    return sandbox;
  }

  /** A new sandbox; one finished after the pool was closed is destroyed, and the caller told so. */
  private async make(image: string | undefined, repository: Workspace['kind']): Promise<SweSandbox> {
    const sandbox = await this.options.provider.create({
      ...(image ? { image } : {}),
      labels: this.options.labels,
      repository,
    });
    this.stats.created += 1;
    if (this.closed) {
      await this.discard(sandbox);
      throw new InfrastructureError('the sandbox pool was closed while a sandbox was being made', {
        code: 'pool-closed',
        retryable: false,
      });
    }
    return sandbox;
  }

  private take(sandbox: SweSandbox): void {
    this.idle = this.idle.filter((item) => item !== sandbox);
    this.busy.add(sandbox);
  }

  /**
   * Returns a sandbox: reset and kept warm, or destroyed (no reuse, a sandbox that is not reusable,
   * a failed reset, too many idle).
   * Until that is done the sandbox is neither idle nor busy, so destroyAll waits for it.
   */
  release(sandbox: SweSandbox): Promise<void> {
    if (!this.busy.delete(sandbox)) return Promise.resolve();
    const done = this.settle(sandbox);
    this.releasing.add(done);
    const forget = () => this.releasing.delete(done);
    void done.then(forget, forget);
    return done;
  }

  private async settle(sandbox: SweSandbox): Promise<void> {
    if (!this.options.reuse || !sandbox.reusable || this.closed) {
      await this.discard(sandbox);
      return;
    }
    try {
      await sandbox.reset();
    } catch {
      this.stats.resetFailures += 1;
      await this.discard(sandbox);
      return;
    }
    if (this.closed) {
      await this.discard(sandbox);
      return;
    }
    this.idle.push(sandbox);
    while (this.idle.length > this.options.maxIdle) {
      const oldest = this.idle.shift();
      if (oldest) await this.discard(oldest);
    }
  }

  /**
   * Destroys a sandbox without letting a failure to do so hide the error that led here. Callers may
   * not wait (an aborted episode drops its sandbox at once): destroyAll waits for every discard.
   */
  discard(sandbox: SweSandbox): Promise<void> {
    this.busy.delete(sandbox);
    this.idle = this.idle.filter((item) => item !== sandbox);
    const done = (async () => {
      try {
        await sandbox.destroy();
      } catch (error) {
        process.emitWarning(`could not destroy sandbox ${sandbox.id}: ${describeError(error)}`);
      }
      this.stats.destroyed += 1;
    })();
    this.discarding.add(done);
    void done.finally(() => this.discarding.delete(done));
    return done;
  }

  /**
   * Destroys every sandbox, idle or in use, and closes the pool: a sandbox still being made or
   * reset when this runs is destroyed as soon as that finishes, instead of being kept, and this
   * waits for those too, so that no container outlives it.
   */
  async destroyAll(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...this.busy];
    this.idle = [];
    this.busy.clear();
    await Promise.all(all.map((sandbox) => this.discard(sandbox)));
    await Promise.allSettled([...this.making]);
    await Promise.allSettled([...this.releasing]);
    await Promise.all([...this.discarding]);
  }
}
