// The messages and shared memory between the host and a sandbox worker thread.

/** Messages from the host to a sandbox worker. */
export type ToWorker =
  | {
      type: 'init';
      prelude: string;
      memoryBytes: number;
      stackBytes: number;
      maxOutputChars: number;
      /** Cap of the engine's WebAssembly memory (`engineMemoryCap`): allocations past it fail. */
      memoryCapBytes: number;
      control: SharedArrayBuffer;
      data: SharedArrayBuffer;
    }
  | { type: 'run'; code: string; fileName: string; timeoutMs: number; maxApiCalls: number; maxArgumentChars: number }
  | { type: 'reset' };

/** What is known of an error thrown by a code block. */
export interface WorkerError {
  name: string;
  message: string;
  stack: string;
}

/** Messages from a sandbox worker to the host. */
export type FromWorker =
  | { type: 'ready'; wasmBytes: number }
  | { type: 'call'; app: string; api: string; argsText: string }
  | {
      type: 'done';
      printed: string;
      droppedChars: number;
      error: WorkerError | null;
      timedOut: boolean;
      /** The engine failed beyond recovery (host stack or memory exhausted inside it): the worker must go. */
      engineFailed: boolean;
      /** The engine's memory reached its cap during the block: a growth of it was refused. */
      memoryCapped: boolean;
      /** Size of the engine's WebAssembly memory after the block (it never shrinks). */
      wasmBytes: number;
    }
  | { type: 'failed'; message: string };

/**
 * The shared control memory of a worker: Int32 slot 0 is the reply flag and slot 1 the reply's
 * length; from byte 8, two BigInt64 slots hold the engine time of the current code block.
 */
export const controlBytes = 24;
/** Offset of the engine-time slots in the control memory. */
export const engineTimeOffset = 8;

/** The WebAssembly memory QuickJS starts with (its static data, stack and first heap), in bytes. */
export const engineBaseBytes = 16 * 1024 * 1024;
/** Size of a WebAssembly memory page. */
const wasmPageBytes = 65_536;

/**
 * The cap of an engine's WebAssembly memory for a heap of `memoryBytes`: the memory it starts with
 * plus the heap, in whole pages. QuickJS's own limit refuses only single allocations larger than
 * the heap (this build cannot measure what it has allocated), so this cap is what bounds the sum.
 */
export function engineMemoryCap(memoryBytes: number): number {
  return Math.ceil((engineBaseBytes + memoryBytes) / wasmPageBytes) * wasmPageBytes;
}

/**
 * The JavaScript heap (V8's old generation) of a sandbox worker thread whose engine has a heap of
 * `memoryBytes`. The worker reads strings out of the engine only as far as its limits go (output,
 * an API call's arguments, an error's name, message and stack are cut in the engine first), so
 * code blocks cannot make it hold much; the one copy that is not cut, the name of a module the
 * code tries to import, is smaller than the engine's memory. Room for twice that memory, plus what
 * the worker needs for itself: a worker that still reaches it is ended by Node, and the block fails.
 */
export function workerHeapBytesFor(memoryBytes: number): number {
  return 128 * 1024 * 1024 + 2 * (engineBaseBytes + memoryBytes);
}

/** The JavaScript heap of a sandbox worker for the default engine heap (64 MB): 288 MB. */
export const defaultWorkerHeapBytes = workerHeapBytesFor(64 * 1024 * 1024);

/**
 * Engine time of the current code block: the time its engine has spent running, in nanoseconds of
 * the process's monotonic clock (`process.hrtime.bigint()`, the same in every thread). `times[0]`
 * is the time of finished stretches; `times[1]` is when the stretch now running began, or 0 while
 * the engine is not running (waiting for the host to answer an API call, or between blocks).
 * The worker clears `times[1]` before it adds to `times[0]`, so reading `times[0]` first and then
 * `times[1]` never counts a stretch twice.
 */
export function engineMsOf(times: BigInt64Array): number {
  const finished = Atomics.load(times, 0);
  const since = Atomics.load(times, 1);
  const running = since === 0n ? 0n : process.hrtime.bigint() - since;
  return Number(finished + (running > 0n ? running : 0n)) / 1e6;
}

/** What the worker uses of a `WebAssembly.Memory` (whose global type this project's libraries leave out). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}
/** Initial and maximum size of a WebAssembly memory, in 64 KiB pages. */
export interface WasmMemorySize {
  initial: number;
  maximum: number;
}
