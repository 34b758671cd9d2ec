import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { InfrastructureError } from '@harness-s/core';
import { sandboxWorkerBody } from './worker-body.js';
import {
  controlBytes,
  defaultWorkerHeapBytes,
  engineMemoryCap,
  engineMsOf,
  engineTimeOffset,
  type FromWorker,
  type ToWorker,
  type WorkerError,
} from './worker-protocol.js';

/** Room for one API reply in shared memory; larger replies are refused with an error. */
const replyBytes = 4 * 1024 * 1024;
/** The worker's native stack: large, so the interpreter's own stack limit is always hit first. */
const workerStackMb = 32;
const mib = 1024 * 1024;

/**
 * The worker's source: the body function serialized, fed the worker port and QuickJS. `__name`
 * is defined because some TypeScript transpilers wrap named functions in it.
 */
function workerSource(): string {
  const quickjsPath = createRequire(import.meta.url).resolve('quickjs-emscripten');
  return `'use strict';
const { parentPort } = require('node:worker_threads');
const quickjs = require(${JSON.stringify(quickjsPath)});
var __name = (target) => target;
(${sandboxWorkerBody.toString()})(parentPort, quickjs);
`;
}

/**
 * What one code block produced in the worker, or that the worker had to be killed (`killed`: past
 * the time limit), or that it reached the limit of its JavaScript heap and Node ended it.
 */
export type WorkerRun =
  | {
      kind: 'finished';
      printed: string;
      droppedChars: number;
      error: WorkerError | null;
      timedOut: boolean;
      engineFailed: boolean;
      /** The engine's memory reached its cap during the block. */
      memoryCapped: boolean;
      /** Size of the engine's WebAssembly memory after the block. */
      wasmBytes: number;
    }
  | { kind: 'killed' }
  | { kind: 'heap-exhausted' };

/** Settings a worker's engine starts with. */
export interface EngineSettings {
  prelude: string;
  memoryBytes: number;
  stackBytes: number;
  maxOutputChars: number;
}

/**
 * A worker thread that hosts one QuickJS engine. The host answers the engine's API calls through
 * shared memory and can always stop a code block by terminating the thread. Messages go to the
 * worker one at a time: each waits until the worker has answered the one before. The thread's
 * JavaScript heap is limited (`heapBytes`): a thread that reaches the limit is ended by Node and
 * the rest of the process goes on (Node ends the whole process only when one allocation goes
 * 16 MB past the limit; what the worker copies out of its engine is far smaller than the limit).
 */
export class SandboxWorker {
  private readonly control = new SharedArrayBuffer(controlBytes);
  private readonly data = new SharedArrayBuffer(replyBytes);
  private readonly controlView = new Int32Array(this.control);
  private readonly engineTimes = new BigInt64Array(this.control, engineTimeOffset, 2);
  private readonly dataView = new Uint8Array(this.data);
  private listener: ((message: FromWorker) => void) | null = null;
  private exitListener: ((reason: string) => void) | null = null;
  private exited = false;
  /** The thread was ended for reaching the limit of its JavaScript heap. */
  private heapExhausted = false;
  /** Being terminated: referenced until it has exited, whatever answer comes in meanwhile. */
  private terminating = false;
  /** Size of the engine's WebAssembly memory when the worker last said (it never shrinks). */
  private wasmBytes = 0;
  /** Messages sent or waiting to be sent, and not answered yet. */
  private unanswered = 0;
  /** Settles when the last of them has been answered. */
  private lastAnswered: Promise<void> = Promise.resolve();

  private constructor(
    private readonly worker: Worker,
    /** The limit of the thread's JavaScript heap (V8's old generation), in bytes. */
    readonly heapBytes: number,
  ) {
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'ready' || message.type === 'done') this.wasmBytes = message.wasmBytes;
      this.listener?.(message);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.heapExhausted = true;
      this.onExit(`the sandbox worker failed: ${error.message}`);
    });
    worker.on('exit', (code) => this.onExit(`the sandbox worker exited with code ${code}`));
    worker.unref();
  }

  /** Starts a worker thread whose JavaScript heap may grow to `heapBytes` (rounded up to whole MiB). */
  static spawn(heapBytes = defaultWorkerHeapBytes): SandboxWorker {
    const resourceLimits = { stackSizeMb: workerStackMb, maxOldGenerationSizeMb: Math.ceil(heapBytes / mib) };
    return new SandboxWorker(new Worker(workerSource(), { eval: true, execArgv: [], resourceLimits }), heapBytes);
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Bytes of WebAssembly memory the worker's engine holds, as of its last answer. */
  get engineMemoryBytes(): number {
    return this.wasmBytes;
  }

  private onExit(reason: string): void {
    this.exited = true;
    this.exitListener?.(reason);
  }

  /** Runs `work` at once, or when every message sent before it has been answered. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const answered = this.unanswered === 0 ? work() : this.lastAnswered.then(work);
    this.unanswered += 1;
    const settled = () => {
      this.unanswered -= 1;
    };
    this.lastAnswered = answered.then(settled, settled);
    return answered;
  }

  /**
   * Sends a message (at once, or when the ones before it are answered) and resolves with the
   * first answer `accept` returns a value for. `onSend` runs just before the message goes out.
   */
  private exchange<T>(
    message: ToWorker,
    accept: (answer: FromWorker) => T | undefined,
    onKill?: () => T,
    onSend?: () => void,
  ): Promise<T> {
    return this.inTurn(() => {
      if (this.exited)
        return Promise.reject(new InfrastructureError('the sandbox worker is gone', { code: 'sandbox-gone' }));
      // Referenced while a message is in flight, so the process waits for the answer.
      this.worker.ref();
      return new Promise<T>((resolve, reject) => {
        this.listener = (answer) => {
          if (answer.type === 'failed') {
            this.listener = null;
            this.exitListener = null;
            reject(new InfrastructureError(`the sandbox worker failed: ${answer.message}`, { code: 'sandbox-failed' }));
            return;
          }
          const value = accept(answer);
          if (value !== undefined) {
            this.listener = null;
            this.exitListener = null;
            resolve(value);
          }
        };
        this.exitListener = (reason) => {
          this.listener = null;
          this.exitListener = null;
          if (onKill) resolve(onKill());
          else reject(new InfrastructureError(reason, { code: 'sandbox-exited' }));
        };
        onSend?.();
        this.worker.postMessage(message);
      }).finally(() => {
        if (!this.exited && !this.terminating) this.worker.unref();
      });
    });
  }

  /** The settings of an engine that was started and has run no code yet, if there is one. */
  private freshEngine: { key: string; ready: Promise<void> } | null = null;

  /**
   * Makes sure the engine is fresh (no variables) and started with `settings`: reuses an engine a
   * pool warmed up in the background with the same settings, or starts one now.
   */
  async init(settings: EngineSettings): Promise<void> {
    const key = JSON.stringify(settings);
    const fresh = this.freshEngine;
    if (fresh?.key === key) {
      try {
        await fresh.ready;
        return;
      } catch {
        // The warm-up failed; start the engine now.
      }
    }
    await this.start(settings, key);
  }

  /** Starts a fresh engine in the background, for the next `init` with the same settings. */
  warm(settings: EngineSettings): void {
    const ready = this.start(settings, JSON.stringify(settings));
    ready.catch(() => undefined);
  }

  private start(settings: EngineSettings, key: string): Promise<void> {
    const ready = this.exchange(
      {
        type: 'init',
        ...settings,
        memoryCapBytes: engineMemoryCap(settings.memoryBytes),
        control: this.control,
        data: this.data,
      },
      (answer) => (answer.type === 'ready' ? true : undefined),
    ).then(() => undefined);
    this.freshEngine = { key, ready };
    return ready;
  }

  /** Frees the engine, keeping the thread for reuse. */
  async reset(): Promise<void> {
    await this.exchange({ type: 'reset' }, (answer) => (answer.type === 'ready' ? true : undefined));
  }

  /** How long the engine has run the current (or last) code block, waits for the host excluded. */
  get engineMs(): number {
    return engineMsOf(this.engineTimes);
  }

  /**
   * Runs one code block. `answer` serves its API calls, at most `maxApiCalls` of them, each with
   * at most `maxArgumentChars` characters of arguments as JSON (other calls are refused in the
   * worker). Both time limits count engine time only (`engineMs`): the engine stops itself at
   * `timeoutMs`; if it is still running at `killAfterMs`, the thread is terminated and the run is
   * `killed`. Time spent waiting for the host (a busy or stalled host
   * thread, slow API answers) neither stops nor kills a block. A thread ended by Node for
   * reaching its heap limit during the block is `heap-exhausted`.
   */
  async run(
    code: string,
    fileName: string,
    limits: { timeoutMs: number; killAfterMs: number; maxApiCalls: number; maxArgumentChars?: number },
    answer: (app: string, api: string, argsText: string) => string,
  ): Promise<WorkerRun> {
    this.freshEngine = null;
    const { timeoutMs, killAfterMs, maxApiCalls } = limits;
    const maxArgumentChars = limits.maxArgumentChars ?? Number.POSITIVE_INFINITY;
    let killed = false;
    let timer: NodeJS.Timeout | undefined;
    // Checks the engine time when it could first have reached the deadline; a host that wakes up
    // late sees the engine time the worker measured meanwhile, not its own delay.
    const watch = (): void => {
      const used = this.engineMs;
      if (used < killAfterMs) {
        timer = setTimeout(watch, Math.max(killAfterMs - used, 10));
        return;
      }
      killed = true;
      void this.worker.terminate();
    };
    const startWatch = (): void => {
      Atomics.store(this.engineTimes, 0, 0n);
      Atomics.store(this.engineTimes, 1, 0n);
      timer = setTimeout(watch, killAfterMs);
    };
    try {
      return await this.exchange<WorkerRun>(
        { type: 'run', code, fileName, timeoutMs, maxApiCalls, maxArgumentChars },
        (message) => {
          // Once the thread is being terminated, whatever it still sends is void: the run is killed.
          if (killed) return undefined;
          if (message.type === 'call') {
            this.reply(answer(message.app, message.api, message.argsText));
            return undefined;
          }
          if (message.type !== 'done') return undefined;
          const { type: _type, ...rest } = message;
          return { kind: 'finished', ...rest };
        },
        () =>
          killed
            ? { kind: 'killed' }
            : this.heapExhausted
              ? { kind: 'heap-exhausted' }
              : {
                  kind: 'finished',
                  printed: '',
                  droppedChars: 0,
                  error: null,
                  timedOut: false,
                  engineFailed: true,
                  memoryCapped: false,
                  wasmBytes: 0,
                },
        startWatch,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private reply(text: string): void {
    let bytes = new TextEncoder().encode(text);
    if (bytes.length > replyBytes) {
      bytes = new TextEncoder().encode(
        JSON.stringify({ ok: false, status: 413, message: `The response is larger than ${replyBytes} bytes.` }),
      );
    }
    this.dataView.set(bytes);
    Atomics.store(this.controlView, 1, bytes.length);
    Atomics.store(this.controlView, 0, 1);
    Atomics.notify(this.controlView, 0);
  }

  async terminate(): Promise<void> {
    // Referenced until it has exited, so a process awaiting this does not end first (an idle
    // worker is unreferenced, and a top-level await left pending exits with code 13).
    if (!this.exited) {
      this.terminating = true;
      this.worker.ref();
      await this.worker.terminate();
    }
    this.exited = true;
  }
}
