import { Worker } from 'node:worker_threads';
import { type ErrorCategory, HarnessError } from '@harness-s/core';
import { loadedPluginModules } from '../plugins.js';
import { type ReproduceJob, ResourceCache, runJob } from './jobs.js';
import type { ResultRecord } from './results.js';

/** Main thread to worker. */
export type JobRequest = { kind: 'run'; id: number; job: ReproduceJob } | { kind: 'interrupt' } | { kind: 'close' };
/** Worker to main thread. */
export type JobReply =
  | { kind: 'step'; label: string }
  | { kind: 'done'; id: number; record: ResultRecord }
  | {
      kind: 'failed';
      id: number;
      message: string;
      stack?: string;
      /** Set when the worker's error was one of this project's (its class does not cross threads). */
      harness?: { name: string; category: ErrorCategory; code: string };
    };

/** Runs reproduction jobs, at most `size` at once; results do not depend on `size`. */
export interface JobPool {
  readonly size: number;
  run(job: ReproduceJob): Promise<ResultRecord>;
  /**
   * Stops the work (SIGINT): queued jobs are rejected, and running ones stop at their next attempt
   * and reject, their checkpoints kept; close the pool once they have settled.
   */
  interrupt(): void;
  /** Ends the pool: called once every job has settled, or at once to abandon the rest on a failure. */
  close(): Promise<void>;
}

/** The error of a job stopped by `JobPool.interrupt`. */
export const interruptedError = () => new Error('interrupted');

/**
 * `size` 1 runs jobs one after another in this thread; more runs each job in one of `size` worker
 * threads (every run is seeded on its own, so the records are the same either way). Training is
 * CPU-bound JavaScript, so workers are what lets a reproduction use more than one core.
 */
export function createJobPool(size: number, onStep: (label: string) => void): JobPool {
  return size <= 1 ? new InlinePool(onStep) : new WorkerPool(size, onStep);
}

class InlinePool implements JobPool {
  readonly size = 1;
  private readonly cache = new ResourceCache();
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly interrupts = new AbortController();

  constructor(private readonly onStep: (label: string) => void) {}

  run(job: ReproduceJob): Promise<ResultRecord> {
    const result = this.tail.then(async () => {
      if (this.closed) throw new Error('the job pool is closed');
      this.interrupts.signal.throwIfAborted();
      return runJob(job, await this.cache.get(job), this.onStep, this.interrupts.signal);
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  interrupt(): void {
    this.interrupts.abort(interruptedError());
  }

  /** Lets the job in progress finish; the queued ones are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    await this.tail;
    await this.cache.close();
  }
}

interface Pending {
  id: number;
  job: ReproduceJob;
  resolve: (record: ResultRecord) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  current?: Pending;
  /** Settles when the current job has (see `free`). */
  idle: Promise<void>;
  markIdle: () => void;
  exited: Promise<void>;
}

/** The slot's job has settled: it may take the next. */
function free(slot: Slot): void {
  slot.current = undefined;
  slot.markIdle();
}

/** The worker's error in this thread, as a HarnessError when it was one (so the CLI reports it as such). */
function rebuildError(reply: Extract<JobReply, { kind: 'failed' }>): Error {
  let error: Error;
  if (reply.harness) {
    error = new HarnessError(reply.harness.category, reply.message, { code: reply.harness.code });
    error.name = reply.harness.name;
  } else error = new Error(reply.message);
  if (reply.stack) error.stack = reply.stack;
  return error;
}

/**
 * A worker running `run-worker.js` next to this module. Run from source (through tsx), the worker
 * registers tsx's loader first: loader flags do not carry over into worker threads.
 */
function startWorker(): Worker {
  // The thread has registries of its own: it loads the plug-ins this one loaded from modules.
  const workerData = { plugins: loadedPluginModules() };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./run-worker.js', import.meta.url), { workerData });
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const target = JSON.stringify(new URL('./run-worker.ts', import.meta.url).href);
  return new Worker(`import(${api}).then(({ register }) => { register(); return import(${target}); });`, {
    eval: true,
    workerData,
  });
}

class WorkerPool implements JobPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private broken: Error | undefined;
  private interrupted = false;

  constructor(
    readonly size: number,
    private readonly onStep: (label: string) => void,
  ) {}

  run(job: ReproduceJob): Promise<ResultRecord> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => !candidate.current);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift() as Pending;
      slot.current = pending;
      slot.idle = new Promise((resolve) => {
        slot.markIdle = resolve;
      });
      slot.worker.postMessage({ kind: 'run', id: pending.id, job: pending.job } satisfies JobRequest);
    }
  }

  private spawn(): Slot {
    const worker = startWorker();
    const slot: Slot = {
      worker,
      idle: Promise.resolve(),
      markIdle: () => undefined,
      exited: new Promise((resolve) => worker.once('exit', () => resolve())),
    };
    worker.on('message', (reply: JobReply) => {
      if (reply.kind === 'step') {
        this.onStep(reply.label);
        return;
      }
      const pending = slot.current;
      if (!pending || pending.id !== reply.id) return;
      free(slot);
      if (reply.kind === 'done') pending.resolve(reply.record);
      else pending.reject(rebuildError(reply));
      this.dispatch();
    });
    const fail = (error: Error) => {
      // A worker that dies takes its job with it; the pool stops taking work.
      this.broken ??= error;
      slot.current?.reject(error);
      free(slot);
      for (const pending of this.queue.splice(0)) pending.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (code !== 0 || slot.current) fail(new Error(`a reproduction worker exited with code ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }

  interrupt(): void {
    this.broken ??= interruptedError();
    this.interrupted = true;
    for (const pending of this.queue.splice(0)) pending.reject(this.broken);
    for (const slot of this.slots) slot.worker.postMessage({ kind: 'interrupt' } satisfies JobRequest);
  }

  /**
   * Queued jobs are rejected and busy workers stopped (a stopped run resumes from its checkpoint).
   * After `interrupt`, busy workers get up to 60 s to stop on their own and close their environments.
   */
  async close(): Promise<void> {
    this.broken ??= new Error('the job pool is closed');
    for (const pending of this.queue.splice(0)) pending.reject(this.broken);
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.current && this.interrupted) await this.settled(slot, 60_000);
        if (slot.current) await slot.worker.terminate();
        else slot.worker.postMessage({ kind: 'close' } satisfies JobRequest);
        const timer = setTimeout(() => void slot.worker.terminate(), 30_000);
        await slot.exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Waits until the slot's job has settled (or the worker exited), at most `ms`. */
  private async settled(slot: Slot, ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([slot.idle, slot.exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}
