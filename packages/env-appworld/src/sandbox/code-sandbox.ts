import { ConfigError, InfrastructureError } from '@harness-s/core';
import { ApiError } from '../api/definition.js';
import { preludeSource } from './prelude.js';
import type { SandboxWorker, WorkerRun } from './sandbox-worker.js';
import { codeFileName, formatTraceback, lineOffset } from './traceback.js';
import { type SandboxWorkerPool, sharedWorkerPool } from './worker-pool.js';
import { workerHeapBytesFor } from './worker-protocol.js';

export { workerHeapBytesFor };

/** Limits of one sandbox; each one, when hit, is an observation for the agent, not a crash. */
export interface SandboxLimits {
  /**
   * Heap of the sandbox's JavaScript runtime: its WebAssembly memory may grow this far past the
   * 16 MB it starts with, and no further (an allocation that needs more fails, and the block with it).
   */
  memoryBytes: number;
  /**
   * JavaScript heap of the worker thread that hosts the engine (V8's old generation, outside the
   * engine's memory). The worker copies out of the engine only what the other limits keep (the
   * output, an API call's arguments, an error's texts), so a block cannot make it hold much; by
   * default 128 MB plus twice the engine's memory (`workerHeapBytesFor`). A block that still makes
   * the thread reach it fails with a MemoryError, and the thread is replaced. Node ends the process,
   * not only the thread, when a single allocation goes more than 16 MB past the limit: keep it at
   * least `minWorkerHeapBytes(maxOutputChars)` (`checkSandboxLimits`).
   */
  workerHeapBytes: number;
  /**
   * Running time of one code block's engine. Time spent waiting for the host to answer API calls
   * is not counted (there are at most `maxApiCallsPerBlock` of them), so a slow or busy host
   * never stops a block.
   */
  timeoutMs: number;
  /** Stack of the sandbox's interpreter (deep recursion fails with "stack overflow"). */
  stackBytes: number;
  /** Printed output kept per code block, and of an error's message; the rest is counted and dropped. */
  maxOutputChars: number;
  /** API calls one code block may make (AppWorld's max_api_calls_per_interaction); later ones fail with 429. */
  maxApiCallsPerBlock: number;
  /** Characters of one API call's arguments as JSON; a longer call fails with 413 without reaching the host. */
  maxArgumentChars: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  memoryBytes: 64 * 1024 * 1024,
  workerHeapBytes: workerHeapBytesFor(64 * 1024 * 1024),
  timeoutMs: 10_000,
  stackBytes: 512 * 1024,
  maxOutputChars: 20_000,
  maxApiCallsPerBlock: 1_000,
  maxArgumentChars: 1_000_000,
};

/**
 * The smallest worker heap for an output limit: the kept output as a string of two-byte characters,
 * and its copy, above a 16 MiB floor. Below it, a block that prints up to the limit could end the
 * whole process (see `workerHeapBytes`).
 */
export const minWorkerHeapBytes = (maxOutputChars: number): number => 16 * 1024 * 1024 + 4 * maxOutputChars;

/**
 * Refuses limits whose worker heap is too small for their output limit, naming both and what would
 * do; unset limits read their defaults. The AppWorld environment checks its limits with it as it is
 * made. `CodeSandbox.create` itself takes any limits, so a test can reach the heap limit.
 */
export function checkSandboxLimits(given: Partial<SandboxLimits>): void {
  const limits = { ...defaultSandboxLimits, ...given };
  if (given.workerHeapBytes === undefined) limits.workerHeapBytes = workerHeapBytesFor(limits.memoryBytes);
  const least = minWorkerHeapBytes(limits.maxOutputChars);
  if (!(limits.workerHeapBytes >= least))
    throw new ConfigError(
      `sandbox limits: workerHeapBytes ${limits.workerHeapBytes} is too small for maxOutputChars ${limits.maxOutputChars}: a block printing that much could end the process; give at least ${least} (16 MiB + 4 bytes per output character), or a smaller maxOutputChars`,
      { code: 'bad-sandbox-limits' },
    );
}

/** What the host answers to `apis.<app>.<api>(args)`: the JSON-able response, or it throws ApiError. */
export type HostApi = (app: string, api: string, args: unknown) => unknown;

/** The result of one code block. */
export interface CodeOutcome {
  /** AppWorld's text: the printed output, "Execution successful." or the traceback. */
  output: string;
  ok: boolean;
  /** Why it failed: an exception in the code (API errors included), the time limit, the memory limit, an engine failure. */
  failure?: 'exception' | 'timeout' | 'memory' | 'engine';
}

export interface SandboxOptions {
  callApi: HostApi;
  apiNames: Record<string, string[]>;
  /** The task's frozen time, `YYYY-MM-DDTHH:MM:SS`. */
  now: string;
  limits?: Partial<SandboxLimits>;
  pool?: SandboxWorkerPool;
}

const restartNote = 'the sandbox was restarted and variables from earlier code blocks are gone.';

/** Engine time past the time limit after which the host terminates the worker thread. */
const killGraceMs = 2_000;

/**
 * A JavaScript sandbox: QuickJS compiled to WebAssembly, a separate engine with its own heap and
 * no file, network, process or module access, running in a worker thread. Agent code reaches the
 * host only through `apis.<app>.<api>(args)` and `print`, bridged as strings. The engine's memory
 * limit and interrupt handler stop most runaway code; since one heavy native call between two
 * interrupt checks can take long, the host also terminates the thread when the engine has run
 * `killGraceMs` past the time limit. Both deadlines count the engine's own running time only, so
 * how busy the host is does not change what a block does. Variables live on across the code
 * blocks of an episode. One code block runs at a time.
 */
export class CodeSandbox {
  private hostFailure: unknown = null;
  private disposed = false;
  private running = false;
  /** Whether the worker went back to the pool (or was discarded) for good. */
  private returned = false;

  private constructor(
    private readonly options: SandboxOptions & { limits: SandboxLimits; pool: SandboxWorkerPool },
    private worker: SandboxWorker,
  ) {}

  static async create(options: SandboxOptions): Promise<CodeSandbox> {
    const limits = { ...defaultSandboxLimits, ...options.limits };
    if (options.limits?.workerHeapBytes === undefined) limits.workerHeapBytes = workerHeapBytesFor(limits.memoryBytes);
    const full = { ...options, limits, pool: options.pool ?? sharedWorkerPool };
    const sandbox = new CodeSandbox(full, full.pool.acquire(limits.workerHeapBytes));
    try {
      await sandbox.worker.init(sandbox.engineSettings());
    } catch (error) {
      full.pool.discard(sandbox.worker);
      throw error;
    }
    return sandbox;
  }

  private engineSettings() {
    const { limits } = this.options;
    return {
      prelude: preludeSource(this.options.apiNames, this.options.now),
      memoryBytes: limits.memoryBytes,
      stackBytes: limits.stackBytes,
      maxOutputChars: limits.maxOutputChars,
    };
  }

  private errorReply(status: number, message: string): string {
    return JSON.stringify({ ok: false, status, message });
  }

  /** One API call from the sandbox: strings in, a JSON string out. */
  private bridge(app: string, api: string, argsText: string): string {
    try {
      const value = this.options.callApi(app, api, JSON.parse(argsText));
      return JSON.stringify({ ok: true, value: value ?? null });
    } catch (error) {
      if (error instanceof ApiError) return this.errorReply(error.status, error.responseText);
      // Anything else is the host failing, not the agent: stop the block and report it upward.
      this.hostFailure = error;
      return this.errorReply(500, 'Internal error of the app server.');
    }
  }

  /** Replaces the worker with a fresh one (an engine with no variables); a closed sandbox only drops it. */
  private async restart(): Promise<void> {
    this.options.pool.discard(this.worker);
    if (this.disposed) {
      this.returned = true;
      return;
    }
    this.worker = this.options.pool.acquire(this.options.limits.workerHeapBytes);
    await this.worker.init(this.engineSettings());
  }

  /**
   * Runs one code block. Throws InfrastructureError only when the host itself failed. A block
   * that is running when the sandbox is disposed finishes in its engine; the worker goes back to
   * the pool after it.
   */
  async run(code: string): Promise<CodeOutcome> {
    if (this.disposed) throw new InfrastructureError('the sandbox is closed', { code: 'sandbox-closed' });
    if (this.running) throw new Error('a code block is already running in this sandbox');
    this.running = true;
    try {
      return await this.runBlock(code);
    } finally {
      this.running = false;
      if (this.disposed) this.giveBack();
    }
  }

  private async runBlock(code: string): Promise<CodeOutcome> {
    this.hostFailure = null;
    const { timeoutMs, memoryBytes, maxApiCallsPerBlock, maxArgumentChars } = this.options.limits;
    const result: WorkerRun = await this.worker.run(
      '\n'.repeat(lineOffset) + code,
      codeFileName,
      { timeoutMs, killAfterMs: timeoutMs + killGraceMs, maxApiCalls: maxApiCallsPerBlock, maxArgumentChars },
      (app, api, argsText) => this.bridge(app, api, argsText),
    );
    if (this.hostFailure) {
      throw new InfrastructureError(`an app API failed inside the world: ${String(this.hostFailure)}`, {
        code: 'world-api-failed',
        cause: this.hostFailure,
      });
    }
    if (result.kind === 'killed') {
      await this.restart();
      return failed(
        '',
        `TimeoutError: the code block ran longer than ${timeoutMs / 1000} s and was stopped; ${restartNote}`,
        'timeout',
      );
    }
    if (result.kind === 'heap-exhausted') {
      await this.restart();
      const heapMb = Math.round(this.options.limits.workerHeapBytes / 1048576);
      return failed(
        '',
        `MemoryError: the code block made the sandbox's worker thread use more than ${heapMb} MB of JavaScript heap; ${restartNote}`,
        'memory',
      );
    }
    const printed =
      result.printed + (result.droppedChars > 0 ? `[output truncated: ${result.droppedChars} more characters]\n` : '');
    const { error } = result;
    // A block that filled its engine's memory fails, even if its code caught the error: the engine
    // is stopped there, and replaced, since any later block could fail for want of memory instead
    // of with its own error. A block that ends with "out of memory" (one allocation larger than the
    // heap, or an error that could not even be made) is reported the same way.
    if (result.memoryCapped || ((error || result.engineFailed) && /out of memory/i.test(error?.message ?? ''))) {
      await this.restart();
      return failed(
        printed,
        `MemoryError: the code block used more than ${Math.round(memoryBytes / 1048576)} MB (variables kept from earlier code blocks included); ${restartNote}`,
        'memory',
      );
    }
    if (result.engineFailed) {
      await this.restart();
      return failed(
        printed,
        `SandboxError: the code exhausted the sandbox (${error?.message ?? 'engine failure'}); ${restartNote}`,
        'engine',
      );
    }
    // Checked before the error: a block stopped inside an async function ends with no error of its own.
    if (result.timedOut) {
      return failed(
        printed,
        `TimeoutError: the code block ran longer than ${timeoutMs / 1000} s and was stopped.`,
        'timeout',
      );
    }
    if (!error) return { output: printed === '' ? 'Execution successful.' : printed.replace(/\n$/, ''), ok: true };
    return { output: `${printed}${formatTraceback(error, code)}`, ok: false, failure: 'exception' };
  }

  /**
   * Frees the engine; the worker goes back to the pool, at once or, while a code block runs,
   * when the block ends. Safe to call twice.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (!this.running) this.giveBack();
  }

  private giveBack(): void {
    if (this.returned) return;
    this.returned = true;
    this.options.pool.release(this.worker, this.engineSettings());
  }
}

function failed(printed: string, line: string, failure: CodeOutcome['failure']): CodeOutcome {
  return { output: `${printed}Execution failed. Traceback:\n${line}`, ok: false, failure };
}
