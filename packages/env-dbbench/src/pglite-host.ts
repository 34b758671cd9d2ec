/**
 * A PGlite engine in a worker thread of its own. PGlite is PostgreSQL compiled to WebAssembly and
 * cannot stop a running statement: in this thread an endless one would block the process for good.
 * In a worker it blocks only that thread, which the host ends (`Worker.terminate` stops WebAssembly
 * too) once a request runs past its time limit; a new engine then starts in a new worker, and requests
 * made meanwhile wait for it. A worker that dies (out of memory) is replaced the same way.
 */
import { mkdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { cachedInitialDataDir, pgliteEntryPath, rememberInitialDataDir } from './pglite-engine.js';
import { pgliteWorkerSource } from './pglite-worker-source.js';

/** Types whose PGlite parsing loses what Python would print (digits, microseconds): read as text. */
const textTypes = [20, 1082, 1083, 1114, 1184, 1266, 1700];

/** Error messages longer than this are cut in the worker (a server cuts them at its message bound). */
const maxErrorChars = 64 * 1024;

/** A request to the engine (pglite-worker-source.ts). */
export type EngineRequest = (
  | { op: 'exec'; sql: string }
  | {
      op: 'query';
      sql: string;
      params?: unknown[];
      /** Values of `textTypes` as text. */
      text?: boolean;
      /** Only the rows a collector with these caps keeps, and the first it refuses. */
      caps?: { maxRows: number; maxBytes: number };
      /** A query run right after this one succeeds; its rows are `afterRows`. */
      after?: string;
    }
) & {
  /** Statements run first; the request fails with the error of the first that fails. */
  before?: string[];
};

/** A successful reply; `fields` and `rows` for queries. */
export interface EngineReply {
  fields: Array<{ name: string; dataTypeID: number }>;
  rows: unknown[][];
  afterRows?: unknown[][];
}

/** Thrown for a request when the host had to replace its engine: it ran too long, or the worker died. */
export class EngineLost extends Error {
  constructor(
    readonly reason: 'timeout' | 'crash',
    message: string,
  ) {
    super(message);
    this.name = 'EngineLost';
  }
}

/** An error PGlite raised for a statement, with its SQLSTATE. */
export type EngineSqlError = Error & { code: string };

export interface PgliteHostOptions {
  /** A folder for the engine's cluster; in memory when absent. */
  dataDir?: string;
  /** Makes a new engine ready to serve (schemas and functions), before any request of the host's users. */
  prepare: (exec: (sql: string) => Promise<void>, rows: (sql: string) => Promise<unknown[][]>) => Promise<void>;
}

interface Pending {
  resolve: (reply: EngineReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

type WorkerMessage =
  | { kind: 'ready'; dump: ArrayBuffer | null }
  | { kind: 'failed'; message: string }
  | ({ kind: 'reply'; id: number; inTransaction: boolean } & (
      | ({ ok: true } & Partial<EngineReply>)
      | { ok: false; error: { message: string; code?: string } }
    ));

export class PgliteHost {
  private worker: Worker | undefined;
  private ready: Promise<void>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private transaction = false;
  private closed = false;

  private constructor(private readonly options: PgliteHostOptions) {
    this.ready = this.spawn();
  }

  /** Starts an engine; rejects when it cannot start. */
  static async start(options: PgliteHostOptions): Promise<PgliteHost> {
    const host = new PgliteHost(options);
    try {
      await host.ready;
    } catch (error) {
      await host.close();
      throw error;
    }
    return host;
  }

  /** Whether a transaction block is open, as of the last reply. */
  inTransaction(): boolean {
    return this.transaction;
  }

  /**
   * Sends a request once the engine is ready. Rejects with the engine's SQL error (an Error with
   * `code`), with EngineLost when it runs past `timeoutMs` (the engine is then replaced) or the worker
   * dies, or with the error of an engine that could not start.
   */
  async request(request: EngineRequest, timeoutMs: number): Promise<EngineReply> {
    await this.ready;
    return this.send(request, timeoutMs);
  }

  /** Ends the engine and its thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready.catch(() => undefined);
    await this.send({ op: 'close' } as unknown as EngineRequest, 5000).catch(() => undefined);
    this.rejectAll(new EngineLost('crash', 'the engine was closed'));
    await this.worker?.terminate().catch(() => undefined);
    this.worker = undefined;
  }

  /** Starts a worker and its engine, and prepares it. */
  private async spawn(): Promise<void> {
    const { dataDir } = this.options;
    if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
    const initialDump = dataDir === undefined ? await cachedInitialDataDir() : null;
    const worker = new Worker(pgliteWorkerSource, {
      eval: true,
      execArgv: [],
      workerData: { pglitePath: pgliteEntryPath, dataDir, initialDump, textTypes, maxErrorChars },
    });
    this.worker = worker;
    this.transaction = false;
    const started = new Promise<ArrayBuffer | null>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message.kind === 'ready') resolve(message.dump);
        else if (message.kind === 'failed') reject(new Error(message.message));
        else if (worker === this.worker) this.reply(worker, message);
      });
      const died = (error: Error) => {
        reject(error);
        this.died(worker, error);
      };
      worker.on('error', died);
      worker.on('exit', (code) => died(new Error(`the engine's thread ended (exit code ${code})`)));
    });
    let dump: ArrayBuffer | null;
    try {
      dump = await started;
    } catch (error) {
      if (this.worker === worker) this.worker = undefined;
      await worker.terminate().catch(() => undefined);
      throw error;
    }
    // An idle engine does not keep the process alive; a request does (`send`).
    worker.unref();
    if (dump) await rememberInitialDataDir(new Uint8Array(dump));
    const noLimit = 10 * 60_000;
    await this.options.prepare(
      async (sql) => {
        await this.send({ op: 'exec', sql }, noLimit);
      },
      async (sql) => (await this.send({ op: 'query', sql }, noLimit)).rows,
    );
  }

  private send(request: EngineRequest, timeoutMs: number): Promise<EngineReply> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new EngineLost('crash', 'the engine is closed'));
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new EngineLost('timeout', `the request ran longer than ${timeoutMs} ms`));
        this.replace(worker, new EngineLost('crash', 'the engine was restarted'));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.ref();
      worker.postMessage({ ...request, id });
    });
  }

  private reply(worker: Worker, message: Extract<WorkerMessage, { kind: 'reply' }>): void {
    this.transaction = message.inTransaction;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (this.pending.size === 0) worker.unref();
    if (message.ok)
      pending.resolve({
        fields: message.fields ?? [],
        rows: message.rows ?? [],
        ...(message.afterRows ? { afterRows: message.afterRows } : {}),
      });
    else if (message.error.code !== undefined)
      pending.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
    else pending.reject(new Error(message.error.message));
  }

  /** The current worker died by itself: its requests fail, and a new engine starts. */
  private died(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    this.replace(worker, new EngineLost('crash', `the engine's thread failed: ${error.message}`));
  }

  /** Ends `worker` (if it is still the current one) and starts a new engine; pending requests fail with `error`. */
  private replace(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    this.transaction = false;
    this.rejectAll(error);
    void worker.terminate().catch(() => undefined);
    if (this.closed) return;
    this.ready = this.spawn();
    // Nobody may be waiting for the new engine yet.
    this.ready.catch(() => undefined);
  }

  private rejectAll(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
  }
}
