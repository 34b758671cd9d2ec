import { type EngineSettings, SandboxWorker } from './sandbox-worker.js';
import { defaultWorkerHeapBytes } from './worker-protocol.js';

/** Engine memory past which a worker given back is ended rather than kept idle. */
export const defaultMaxIdleEngineBytes = 32 * 1024 * 1024;

/**
 * Sandbox workers kept warm between episodes: starting a thread and loading QuickJS into it
 * takes tens of milliseconds, reusing one only resets its engine. A worker is lent to one
 * borrower at a time; giving back a worker that is not lent (twice, say) does nothing.
 * WebAssembly memory never shrinks, so a worker whose engine grew past `maxIdleEngineBytes`
 * (a block that used much memory) is ended when given back, and a fresh one is started later.
 * A worker's JavaScript heap limit is set when its thread starts: a borrower gets a worker with
 * the limit it asks for.
 */
export class SandboxWorkerPool {
  private readonly idle: SandboxWorker[] = [];
  private readonly lent = new Set<SandboxWorker>();
  private live = 0;

  constructor(
    private readonly maxIdle = 4,
    private readonly maxIdleEngineBytes = defaultMaxIdleEngineBytes,
  ) {}

  /** Lends an idle worker whose JavaScript heap limit is `heapBytes`, or starts one. */
  acquire(heapBytes = defaultWorkerHeapBytes): SandboxWorker {
    let worker: SandboxWorker | undefined;
    for (let index = this.idle.length - 1; index >= 0 && !worker; index -= 1) {
      const candidate = this.idle[index] as SandboxWorker;
      if (!candidate.alive) {
        this.idle.splice(index, 1);
        this.live -= 1;
      } else if (candidate.heapBytes === heapBytes) {
        this.idle.splice(index, 1);
        worker = candidate;
      }
    }
    if (!worker) {
      worker = SandboxWorker.spawn(heapBytes);
      this.live += 1;
    }
    this.lent.add(worker);
    return worker;
  }

  /**
   * Takes a worker back for reuse, or ends it if its engine grew past `maxIdleEngineBytes`. With
   * `warmWith`, a fresh engine with those settings is started in the background, so the next
   * sandbox with the same settings starts without waiting. The borrower must not use the worker
   * any more, nor give it back while a code block still runs in it.
   */
  release(worker: SandboxWorker, warmWith?: EngineSettings): void {
    if (!this.lent.delete(worker)) return;
    if (!worker.alive || this.idle.length >= this.maxIdle || worker.engineMemoryBytes > this.maxIdleEngineBytes) {
      this.terminate(worker);
      return;
    }
    // A fresh engine is started now, off the next episode's path (the old one is dropped with it).
    if (warmWith) worker.warm(warmWith);
    this.idle.push(worker);
  }

  /** Ends a lent worker whose engine cannot be trusted any more. */
  discard(worker: SandboxWorker): void {
    if (!this.lent.delete(worker)) return;
    this.terminate(worker);
  }

  private terminate(worker: SandboxWorker): void {
    this.live -= 1;
    void worker.terminate();
  }

  /** Workers lent to sandboxes and not yet given back. */
  get inUse(): number {
    return this.lent.size;
  }

  /** Worker threads alive (idle or in use). */
  get liveWorkers(): number {
    return this.live;
  }

  /** Terminates every idle worker. */
  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    this.live -= idle.length;
    await Promise.all(idle.map((worker) => worker.terminate()));
  }
}

/** The pool shared by every environment of this process. */
export const sharedWorkerPool = new SandboxWorkerPool();
