import { HarnessError, InfrastructureError } from '@harness-s/core';

export interface SlotPoolOptions<S> {
  /** Slots at most (leased, idle and being made). */
  maxSlots: number;
  /** Idle slots to keep ready, made in the background. */
  spareSlots: number;
  create: () => Promise<S>;
  destroy: (slot: S) => Promise<void>;
}

interface Waiter<S> {
  resolve: (slot: S) => void;
  reject: (error: unknown) => void;
}

/**
 * Server-side resources (a connection with its role or user) leased one episode at a time. Slots
 * are made ahead of demand in the background, reused after a clean episode and destroyed after one
 * that broke or escaped; when all are busy, leases wait in order.
 */
export class SlotPool<S> {
  private readonly idle: S[] = [];
  private readonly waiters: Array<Waiter<S>> = [];
  private readonly background = new Set<Promise<void>>();
  private total = 0;
  private making = 0;
  private closed = false;
  /** Slots leased right now. */
  inUse = 0;

  constructor(private readonly options: SlotPoolOptions<S>) {}

  /** An idle slot (`preferred` when it is idle), a new one, or the next one released. */
  async lease(preferred?: S): Promise<S> {
    if (this.closed)
      throw new InfrastructureError('the database backend is closed', { code: 'db-closed', retryable: false });
    const index = preferred === undefined ? -1 : this.idle.indexOf(preferred);
    const ready = index >= 0 ? this.idle.splice(index, 1)[0] : this.idle.pop();
    if (ready !== undefined) {
      this.inUse += 1;
      this.fillSpares();
      return ready;
    }
    if (this.total >= this.options.maxSlots) {
      return new Promise<S>((resolve, reject) =>
        this.waiters.push({
          resolve: (slot) => {
            this.inUse += 1;
            resolve(slot);
          },
          reject,
        }),
      );
    }
    this.total += 1;
    try {
      const slot = await this.options.create();
      this.inUse += 1;
      this.fillSpares();
      return slot;
    } catch (error) {
      this.total -= 1;
      throw asInfrastructureError(error);
    }
  }

  /** Takes a slot back: reused, or destroyed when `discard` is set (resolves once it is gone). */
  async release(slot: S, discard: boolean): Promise<void> {
    this.inUse -= 1;
    if (!discard && !this.closed) {
      this.hand(slot);
      return;
    }
    this.total -= 1;
    const destroyed = this.track(this.options.destroy(slot));
    this.serveWaiters();
    this.fillSpares();
    await destroyed;
  }

  /** Whether `slot` is idle, so that a lease preferring it gets it. */
  isIdle(slot: S): boolean {
    return this.idle.includes(slot);
  }

  /** Makes idle slots in the background until `spareSlots` are ready. */
  fillSpares(): void {
    while (
      !this.closed &&
      this.idle.length + this.making < this.options.spareSlots &&
      this.total < this.options.maxSlots
    ) {
      this.make();
    }
  }

  /** Stops leasing, waits for background work and destroys every idle slot. Leased slots are destroyed on release. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      waiter.reject(new InfrastructureError('the database backend is closed', { code: 'db-closed', retryable: false }));
    }
    while (this.background.size > 0) await Promise.all([...this.background]);
    await Promise.all(this.idle.splice(0).map((slot) => this.options.destroy(slot).catch(() => undefined)));
    this.total = this.inUse;
  }

  private make(): void {
    this.total += 1;
    this.making += 1;
    this.track(
      this.options.create().then(
        (slot) => {
          this.making -= 1;
          if (this.closed) {
            this.total -= 1;
            return this.options.destroy(slot);
          }
          this.hand(slot);
        },
        (error: unknown) => {
          this.making -= 1;
          this.total -= 1;
          // Nothing else will wake a waiter when the server is failing: pass the error on.
          if (this.making === 0 && this.total < this.options.maxSlots) {
            this.waiters.shift()?.reject(asInfrastructureError(error));
          }
        },
      ),
    );
  }

  private hand(slot: S): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
  }

  private serveWaiters(): void {
    const room = this.options.maxSlots - this.total;
    for (let index = 0; index < Math.min(room, this.waiters.length - this.making); index += 1) this.make();
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
    return tracked;
  }
}

/** A failure to make a slot, as the error the runner retries (errors of this project pass through). */
function asInfrastructureError(error: unknown): HarnessError {
  if (HarnessError.isInstance(error)) return error;
  return new InfrastructureError(`could not make a database session: ${(error as Error).message}`, {
    code: 'db-session-failed',
    cause: error,
  });
}
