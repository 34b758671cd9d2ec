import type { MessagePort } from 'node:worker_threads';
import type * as QuickJs from 'quickjs-emscripten';

/** Messages from the host to a sandbox worker. */
export type ToWorker =
  | {
      type: 'init';
      prelude: string;
      memoryBytes: number;
      stackBytes: number;
      maxOutputChars: number;
      control: SharedArrayBuffer;
      data: SharedArrayBuffer;
    }
  | { type: 'run'; code: string; fileName: string; timeoutMs: number; maxApiCalls: number }
  | { type: 'reset' };

/** What is known of an error thrown by a code block. */
export interface WorkerError {
  name: string;
  message: string;
  stack: string;
}

/** Messages from a sandbox worker to the host. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'call'; app: string; api: string; argsText: string }
  | {
      type: 'done';
      printed: string;
      droppedChars: number;
      error: WorkerError | null;
      timedOut: boolean;
      /** The engine failed beyond recovery (host stack exhausted inside it): the worker must go. */
      engineFailed: boolean;
    }
  | { type: 'failed'; message: string };

/**
 * The shared control memory of a worker: Int32 slot 0 is the reply flag and slot 1 the reply's
 * length; from byte 8, two BigInt64 slots hold the engine time of the current code block.
 */
export const controlBytes = 24;
/** Offset of the engine-time slots in the control memory. */
export const engineTimeOffset = 8;

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

/**
 * The whole program of a sandbox worker thread. It is serialized with `toString()` and run as the
 * worker's source, so it must be self-contained: it may use only its parameters and globals.
 *
 * The worker owns one QuickJS engine. API calls go to the host as a message; the worker then
 * blocks on `Atomics.wait` until the host writes the reply into shared memory, so the sandbox
 * sees `apis.<app>.<api>(args)` as an ordinary synchronous call. The time limit of a block counts
 * only the engine's own running time, not the waits for the host, so a busy host does not change
 * what a block does; calls past the block's limit are refused here, without asking the host.
 */
export function sandboxWorkerBody(port: MessagePort, quickjs: typeof QuickJs): void {
  let module: QuickJs.QuickJSWASMModule | null = null;
  let runtime: QuickJs.QuickJSRuntime | null = null;
  let context: QuickJs.QuickJSContext | null = null;
  let control = new Int32Array(new SharedArrayBuffer(24));
  let times = new BigInt64Array(control.buffer, 8, 2);
  let data = new Uint8Array(new SharedArrayBuffer(8));
  let printed = '';
  let droppedChars = 0;
  let maxOutputChars = 20_000;
  let callsLeft = 0;
  let callLimit = 0;
  let engineNs = 0n;
  let runningSince = 0n;
  const decoder = new TextDecoder();
  const send = (message: FromWorker): void => port.postMessage(message);

  /** The engine starts or resumes running the block. */
  const resumeClock = (): void => {
    runningSince = process.hrtime.bigint();
    Atomics.store(times, 1, runningSince);
  };
  /** The engine stops running (it waits for the host, or the block is over). */
  const pauseClock = (): void => {
    if (runningSince === 0n) return;
    const now = process.hrtime.bigint();
    Atomics.store(times, 1, 0n);
    engineNs += now - runningSince;
    Atomics.store(times, 0, engineNs);
    runningSince = 0n;
  };
  const engineMs = (): number =>
    Number(engineNs + (runningSince === 0n ? 0n : process.hrtime.bigint() - runningSince)) / 1e6;

  const append = (text: string): void => {
    const room = Math.max(0, maxOutputChars - printed.length);
    printed += text.slice(0, room);
    droppedChars += Math.max(0, text.length - room);
  };

  const callHost = (app: string, api: string, argsText: string): string => {
    if (callsLeft <= 0) {
      return JSON.stringify({
        ok: false,
        status: 429,
        message: `Too many API calls in one code block (limit ${callLimit}).`,
      });
    }
    callsLeft -= 1;
    Atomics.store(control, 0, 0);
    pauseClock();
    send({ type: 'call', app, api, argsText });
    // Only the reply sets the flag. A wake-up with the flag still clear is not this call's reply:
    // the host sets the flag before it notifies, so its notify of the previous reply can come
    // after the worker, having seen that flag, already waits for this one. Wait again then.
    while (Atomics.load(control, 0) === 0) Atomics.wait(control, 0, 0);
    resumeClock();
    return decoder.decode(data.slice(0, Atomics.load(control, 1)));
  };

  const stopEngine = (): void => {
    context?.dispose();
    runtime?.dispose();
    context = null;
    runtime = null;
  };

  const startEngine = (init: Extract<ToWorker, { type: 'init' }>, quickjsModule: QuickJs.QuickJSWASMModule): void => {
    const newRuntime = quickjsModule.newRuntime();
    newRuntime.setMemoryLimit(init.memoryBytes);
    newRuntime.setMaxStackSize(init.stackBytes);
    newRuntime.setModuleLoader(() => {
      throw new Error('modules cannot be loaded in this sandbox');
    });
    const newContext = newRuntime.newContext();
    const strings = (handles: QuickJs.QuickJSHandle[]): string[] | null =>
      handles.every((handle) => newContext.typeof(handle) === 'string')
        ? handles.map((handle) => newContext.getString(handle))
        : null;
    const hostCall = newContext.newFunction('__hostCall', (...handles) => {
      const values = handles.length === 3 ? strings(handles) : null;
      const reply = values
        ? callHost(values[0] ?? '', values[1] ?? '', values[2] ?? '')
        : JSON.stringify({ ok: false, status: 400, message: 'bad bridge call' });
      return newContext.newString(reply);
    });
    const hostPrint = newContext.newFunction('__hostPrint', (...handles) => {
      const values = strings(handles);
      if (values) append(`${values.join(' ')}\n`);
    });
    newContext.setProp(newContext.global, '__hostCall', hostCall);
    newContext.setProp(newContext.global, '__hostPrint', hostPrint);
    hostCall.dispose();
    hostPrint.dispose();
    const prelude = newContext.evalCode(init.prelude, '<prelude>');
    if (prelude.error) {
      const message = JSON.stringify(newContext.dump(prelude.error));
      prelude.error.dispose();
      throw new Error(`the sandbox prelude failed: ${message}`);
    }
    prelude.value.dispose();
    runtime = newRuntime;
    context = newContext;
  };

  /** Name, message and stack of a thrown value, read without trusting it. */
  const thrown = (handle: QuickJs.QuickJSHandle): WorkerError => {
    const vm = context as QuickJs.QuickJSContext;
    const kind = vm.typeof(handle);
    if (kind !== 'object') {
      const text = kind === 'string' ? vm.getString(handle) : kind === 'number' ? String(vm.getNumber(handle)) : kind;
      return { name: 'Error', message: `thrown value: ${text}`, stack: '' };
    }
    const field = (key: string): string => {
      try {
        const value = vm.getProp(handle, key);
        const text = vm.typeof(value) === 'string' ? vm.getString(value) : '';
        value.dispose();
        return text;
      } catch {
        return '';
      }
    };
    return { name: field('name') || 'Error', message: field('message'), stack: field('stack') };
  };

  const run = ({ code, fileName, timeoutMs, maxApiCalls }: Extract<ToWorker, { type: 'run' }>): void => {
    printed = '';
    droppedChars = 0;
    callsLeft = maxApiCalls;
    callLimit = maxApiCalls;
    const vmRuntime = runtime as QuickJs.QuickJSRuntime;
    const vm = context as QuickJs.QuickJSContext;
    let timedOut = false;
    vmRuntime.setInterruptHandler(() => {
      timedOut ||= engineMs() > timeoutMs;
      return timedOut;
    });
    engineNs = 0n;
    runningSince = 0n;
    Atomics.store(times, 0, 0n);
    resumeClock();
    let error: WorkerError | null = null;
    try {
      const result = vm.evalCode(code, fileName);
      if (result.error) {
        error = thrown(result.error);
        result.error.dispose();
      } else {
        const jobs = vmRuntime.executePendingJobs();
        if (jobs.error) {
          error = thrown(jobs.error);
          jobs.error.dispose();
        }
        const state = vm.getPromiseState(result.value);
        if (state.type === 'rejected') {
          error ??= thrown(state.error);
          state.error.dispose();
        } else if (state.type === 'fulfilled' && !state.notAPromise) state.value.dispose();
        result.value.dispose();
      }
    } catch (hostError) {
      pauseClock();
      const message = hostError instanceof Error ? hostError.message : String(hostError);
      send({
        type: 'done',
        printed,
        droppedChars,
        error: { name: 'SandboxError', message, stack: '' },
        timedOut,
        engineFailed: true,
      });
      return;
    }
    pauseClock();
    vmRuntime.setInterruptHandler(() => false);
    send({ type: 'done', printed, droppedChars, error, timedOut, engineFailed: false });
  };

  let init: Extract<ToWorker, { type: 'init' }> | null = null;
  port.on('message', (message: ToWorker) => {
    void (async () => {
      try {
        if (message.type === 'init') {
          init = message;
          control = new Int32Array(message.control);
          times = new BigInt64Array(message.control, 8, 2);
          data = new Uint8Array(message.data);
          maxOutputChars = message.maxOutputChars;
          module ??= await quickjs.newQuickJSWASMModule(quickjs.RELEASE_SYNC);
          stopEngine();
          startEngine(message, module);
          send({ type: 'ready' });
        } else if (message.type === 'run') {
          if (!context || !init) throw new Error('the sandbox worker was not initialised');
          run(message);
        } else {
          stopEngine();
          send({ type: 'ready' });
        }
      } catch (error) {
        send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
}
