import { InfrastructureError } from '@harness-s/core';

export interface StorePoolOptions<S> {
  /** Stores kept at most; beyond it the least recently used free ones are destroyed. */
  maxStores: number;
  /** Empty stores to keep ready, made in the background. */
  spareEmpty: number;
  create: () => Promise<S>;
  destroy: (store: S) => Promise<void>;
}

/**
 * Databases that each hold one task's initial table, by task. A lease takes a free store of the task
 * (no work), or an empty one that the caller fills (`fresh`). Released stores wait for the next
 * episode of their task; dirty ones are destroyed. Empty stores are made ahead of demand, and the
 * least recently used free stores make room when there are too many.
 */
export class StorePool<S> {
  private readonly free = new Map<string, S[]>();
  /** Free stores, least recently used first. */
  private readonly freeOrder: Array<{ store: S; task: string }> = [];
  private readonly empty: S[] = [];
  /** Stores finished after close, for the caller to drop with the rest. */
  private readonly released: S[] = [];
  private readonly background = new Set<Promise<void>>();
  private count = 0;
  private making = 0;
  private closed = false;

  constructor(private readonly options: StorePoolOptions<S>) {}

  /**
   * A store for `task`: one holding its table (`fresh` false; a `preferred` one if any), or an empty
   * one to fill (`fresh` true).
   */
  async lease(task: string, preferred: (store: S) => boolean = () => false): Promise<{ store: S; fresh: boolean }> {
    const free = this.free.get(task) ?? [];
    const index = free.findIndex(preferred);
    const kept = index >= 0 ? free.splice(index, 1)[0] : free.pop();
    if (kept !== undefined) {
      this.freeOrder.splice(
        this.freeOrder.findIndex((entry) => entry.store === kept),
        1,
      );
      return { store: kept, fresh: false };
    }
    const ready = this.empty.pop();
    this.fillSpares();
    if (ready !== undefined) return { store: ready, fresh: true };
    this.count += 1;
    try {
      const store = await this.options.create();
      this.evict();
      return { store, fresh: true };
    } catch (error) {
      this.count -= 1;
      throw new InfrastructureError(`could not make a database for an episode: ${(error as Error).message}`, {
        code: 'db-store-failed',
        cause: error,
      });
    }
  }

  /** Takes a store back for the next episode of `task`, or destroys it when `discard` is set (resolves once it is gone). */
  async release(store: S, task: string, discard: boolean): Promise<void> {
    if (discard || this.closed) {
      this.count -= 1;
      await this.track(this.options.destroy(store));
      return;
    }
    const list = this.free.get(task) ?? [];
    list.push(store);
    this.free.set(task, list);
    this.freeOrder.push({ store, task });
    this.evict();
  }

  /** Makes empty stores in the background until `spareEmpty` are ready. */
  fillSpares(): void {
    while (
      !this.closed &&
      this.empty.length + this.making < this.options.spareEmpty &&
      this.count < this.options.maxStores
    ) {
      this.count += 1;
      this.making += 1;
      this.track(
        this.options.create().then(
          (store) => {
            this.making -= 1;
            if (this.closed) this.released.push(store);
            else this.empty.push(store);
          },
          () => {
            this.making -= 1;
            this.count -= 1;
          },
        ),
      );
    }
  }

  /** Stops making stores, waits for background work, and returns every idle store for the caller to drop. */
  async close(): Promise<S[]> {
    this.closed = true;
    while (this.background.size > 0) await Promise.all([...this.background]);
    const idle = [...this.freeOrder.map((entry) => entry.store), ...this.empty.splice(0), ...this.released.splice(0)];
    this.free.clear();
    this.freeOrder.splice(0);
    return idle;
  }

  /** Destroys the least recently used free stores while there are more than `maxStores`. */
  private evict(): void {
    while (this.count > this.options.maxStores && this.freeOrder.length > 0) {
      const oldest = this.freeOrder.shift();
      if (!oldest) break;
      const list = this.free.get(oldest.task) ?? [];
      list.splice(list.indexOf(oldest.store), 1);
      this.count -= 1;
      this.track(this.options.destroy(oldest.store));
    }
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return tracked;
  }
}
