import type { ExecResult } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import type { GitRunner } from './git.js';
import { SandboxPool } from './sandbox-pool.js';
import type { SweSandbox, SweSandboxProvider, Workspace } from './swe-sandbox.js';

/** A sandbox that records what is done to it; `failReset` makes its next reset fail. */
class FakeSandbox implements SweSandbox {
  readonly kind = 'docker' as const;
  readonly repoPath = '/testbed';
  readonly scratchPath = '/tmp/harness-s';
  workspace: Workspace | null = null;
  prepared = 0;
  resets = 0;
  destroyed = false;
  failReset = false;
  /** As Docker containers: only one that holds a repository copied in is reusable. */
  readonly reusable: boolean;
  constructor(
    readonly id: string,
    readonly image: string,
    readonly repository: Workspace['kind'],
  ) {
    this.reusable = repository === 'host';
  }
  async prepare(workspace: Workspace) {
    this.prepared += 1;
    this.workspace = workspace;
  }
  async reset() {
    this.resets += 1;
    if (this.failReset) throw new Error('reset failed');
  }
  async destroy() {
    this.destroyed = true;
  }
  async whyUnusable() {
    return null;
  }
  git(): GitRunner {
    throw new Error('not used');
  }
  async exec(): Promise<ExecResult> {
    throw new Error('not used');
  }
  async readFile(): Promise<string> {
    return '';
  }
  async writeFile() {}
}

function fakeProvider(): SweSandboxProvider & { made: FakeSandbox[] } {
  const made: FakeSandbox[] = [];
  return {
    kind: 'docker',
    made,
    async create({ image, repository }) {
      const sandbox = new FakeSandbox(`s${made.length}`, image ?? 'none', repository ?? 'host');
      made.push(sandbox);
      return sandbox;
    },
    async cleanup() {
      return 0;
    },
    async close() {},
  };
}

/** `destroyAll` does not finish before `finish` is called, and does after. */
async function destroyAllWaitsFor(pool: SandboxPool, finish: () => void): Promise<void> {
  let closed = false;
  const closing = pool.destroyAll().then(() => {
    closed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(closed).toBe(false);
  finish();
  await closing;
}

const workspace = (baseCommit: string): Workspace => ({
  kind: 'host',
  hostRepo: `/repos/${baseCommit}`,
  repoPath: '/testbed',
  baseCommit,
});
const imageWorkspace = (baseCommit: string): Workspace => ({ kind: 'image', repoPath: '/testbed', baseCommit });

describe('SandboxPool', () => {
  it('reuses a reset sandbox of the same workspace, re-prepares one of the same image, and creates otherwise', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const first = await pool.acquire('img', workspace('a'));
    expect(pool.inUse).toBe(1);
    await pool.release(first);
    expect((first as FakeSandbox).resets).toBe(1);
    expect(await pool.acquire('img', workspace('a'))).toBe(first);
    await pool.release(first);
    const retargeted = await pool.acquire('img', workspace('b'));
    expect(retargeted).toBe(first);
    expect((first as FakeSandbox).prepared).toBe(2);
    const other = await pool.acquire('other-image', workspace('b'));
    expect(other).not.toBe(first);
    expect(pool.stats).toMatchObject({ created: 2, reused: 1, retargeted: 1 });
    await pool.destroyAll();
    expect(provider.made.every((sandbox) => sandbox.destroyed)).toBe(true);
    expect(pool.inUse).toBe(0);
  });

  it('destroys what is made or returned while the pool is being destroyed, instead of keeping it', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const returning = (await pool.acquire('img', workspace('a'))) as FakeSandbox;
    // Released (its reset in flight) and another being made when the pool is destroyed.
    const released = pool.release(returning);
    const making = pool.acquire('img', workspace('b'));
    await pool.destroyAll();
    await released;
    await expect(making).rejects.toThrow(/closed/);
    expect(provider.made).toHaveLength(2);
    expect(provider.made.every((sandbox) => sandbox.destroyed)).toBe(true);
    expect({ inUse: pool.inUse, idle: pool.idleCount }).toEqual({ inUse: 0, idle: 0 });
  });

  it('waits, when destroyed, for a discard that its caller did not wait for', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const sandbox = (await pool.acquire('img', workspace('a'))) as FakeSandbox;
    let finish = () => {};
    sandbox.destroy = () =>
      new Promise<void>((resolve) => {
        finish = () => {
          sandbox.destroyed = true;
          resolve();
        };
      });
    void pool.discard(sandbox);
    await destroyAllWaitsFor(pool, () => finish());
    expect(sandbox.destroyed).toBe(true);
  });

  it('waits, when destroyed, for a sandbox still being made whose episode no longer waits for it', async () => {
    const provider = fakeProvider();
    const create = provider.create.bind(provider);
    let finish = () => {};
    provider.create = (options) =>
      new Promise((resolve) => {
        finish = () => resolve(create(options));
      });
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    // The episode was interrupted: nobody awaits its acquire any more.
    const making = pool.acquire('img', workspace('a'));
    making.catch(() => {});
    await destroyAllWaitsFor(pool, () => finish());
    expect(provider.made).toHaveLength(1);
    expect(provider.made[0]?.destroyed).toBe(true);
    await expect(making).rejects.toThrow(/closed while a sandbox was being made/);
  });

  it('waits, when destroyed, for a sandbox whose release (its reset) its caller did not wait for', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const sandbox = (await pool.acquire('img', workspace('a'))) as FakeSandbox;
    let finish = () => {};
    sandbox.reset = () =>
      new Promise<void>((resolve) => {
        finish = resolve;
      });
    // An interrupted episode drops its sandbox: the release runs on, unwatched.
    void pool.release(sandbox);
    await destroyAllWaitsFor(pool, () => finish());
    expect(sandbox.destroyed).toBe(true);
    expect({ inUse: pool.inUse, idle: pool.idleCount }).toEqual({ inUse: 0, idle: 0 });
  });

  it('destroys a sandbox whose reset fails instead of reusing it', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const sandbox = (await pool.acquire('img', workspace('a'))) as FakeSandbox;
    sandbox.failReset = true;
    await pool.release(sandbox);
    expect(sandbox.destroyed).toBe(true);
    expect(pool.idleCount).toBe(0);
    expect(await pool.acquire('img', workspace('a'))).not.toBe(sandbox);
    expect(pool.stats.resetFailures).toBe(1);
  });

  it('keeps at most maxIdle warm sandboxes, and none without reuse', async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 1, labels: {} });
    const [a, b] = await Promise.all([pool.acquire('img', workspace('a')), pool.acquire('img', workspace('b'))]);
    await pool.release(a);
    await pool.release(b);
    expect(pool.idleCount).toBe(1);
    expect((a as FakeSandbox).destroyed).toBe(true);

    const single = new SandboxPool({ provider: fakeProvider(), reuse: false, maxIdle: 4, labels: {} });
    const one = (await single.acquire('img', workspace('a'))) as FakeSandbox;
    await single.release(one);
    expect(one.destroyed).toBe(true);
    expect(one.resets).toBe(0);
  });

  it("uses a sandbox of an image's repository for one episode: never reset in place, never handed out again", async () => {
    const provider = fakeProvider();
    const pool = new SandboxPool({ provider, reuse: true, maxIdle: 4, labels: {} });
    const single = (await pool.acquire('img', imageWorkspace('a'))) as FakeSandbox;
    expect(single.repository).toBe('image');
    await pool.release(single);
    expect(single).toMatchObject({ resets: 0, destroyed: true });
    expect(pool.stats.resetFailures).toBe(0);
    // A warm sandbox holding a copied-in repository does not take an image's either.
    const warm = (await pool.acquire('img', workspace('b'))) as FakeSandbox;
    expect(warm.repository).toBe('host');
    await pool.release(warm);
    const next = await pool.acquire('img', imageWorkspace('a'));
    expect(next).not.toBe(single);
    expect(next).not.toBe(warm);
    expect(pool.stats).toMatchObject({ created: 3, reused: 0, retargeted: 0 });
    await pool.destroyAll();
  });
});
