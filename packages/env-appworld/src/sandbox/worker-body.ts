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
  | { type: 'run'; code: string; fileName: string; timeoutMs: number }
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
 * The whole program of a sandbox worker thread. It is serialized with `toString()` and run as the
 * worker's source, so it must be self-contained: it may use only its parameters and globals.
 *
 * The worker owns one QuickJS engine. API calls go to the host as a message; the worker then
 * blocks on `Atomics.wait` until the host writes the reply into shared memory, so the sandbox
 * sees `apis.<app>.<api>(args)` as an ordinary synchronous call.
 */
export function sandboxWorkerBody(port: MessagePort, quickjs: typeof QuickJs): void {
  let module: QuickJs.QuickJSWASMModule | null = null;
  let runtime: QuickJs.QuickJSRuntime | null = null;
  let context: QuickJs.QuickJSContext | null = null;
  let control = new Int32Array(new SharedArrayBuffer(8));
  let data = new Uint8Array(new SharedArrayBuffer(8));
  let printed = '';
  let droppedChars = 0;
  let maxOutputChars = 20_000;
  const decoder = new TextDecoder();
  const send = (message: FromWorker): void => port.postMessage(message);

  const append = (text: string): void => {
    const room = Math.max(0, maxOutputChars - printed.length);
    printed += text.slice(0, room);
    droppedChars += Math.max(0, text.length - room);
  };

  const callHost = (app: string, api: string, argsText: string): string => {
    Atomics.store(control, 0, 0);
    send({ type: 'call', app, api, argsText });
    Atomics.wait(control, 0, 0);
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

  const run = (code: string, fileName: string, timeoutMs: number): void => {
    printed = '';
    droppedChars = 0;
    const vmRuntime = runtime as QuickJs.QuickJSRuntime;
    const vm = context as QuickJs.QuickJSContext;
    const deadline = Date.now() + timeoutMs;
    let timedOut = false;
    vmRuntime.setInterruptHandler(() => {
      timedOut ||= Date.now() > deadline;
      return timedOut;
    });
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
          data = new Uint8Array(message.data);
          maxOutputChars = message.maxOutputChars;
          module ??= await quickjs.newQuickJSWASMModule(quickjs.RELEASE_SYNC);
          stopEngine();
          startEngine(message, module);
          send({ type: 'ready' });
        } else if (message.type === 'run') {
          if (!context || !init) throw new Error('the sandbox worker was not initialised');
          run(message.code, message.fileName, message.timeoutMs);
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
