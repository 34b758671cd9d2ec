import type { MessagePort } from 'node:worker_threads';
import type * as QuickJs from 'quickjs-emscripten';
import type { FromWorker, ToWorker, WasmMemory, WasmMemorySize, WorkerError } from './worker-protocol.js';

/**
 * The whole program of a sandbox worker thread. It is serialized with `toString()` and run as the
 * worker's source, so it must be self-contained: it may use only its parameters and globals.
 *
 * The worker owns one QuickJS engine. API calls go to the host as a message; the worker then
 * blocks on `Atomics.wait` until the host writes the reply into shared memory, so the sandbox
 * sees `apis.<app>.<api>(args)` as an ordinary synchronous call. The time limit of a block counts
 * only the engine's own running time, not the waits for the host, so a busy host does not change
 * what a block does; calls past the block's limit are refused here, without asking the host.
 *
 * The engine's WebAssembly memory is created here with a maximum (`memoryCapBytes`), so no code
 * block can make it larger: an allocation that would need more fails, as QuickJS's own memory
 * limit fails one, with "out of memory". Once that has happened in a block, the block is over
 * whatever its code does: the engine is interrupted at its next check and makes no more API
 * calls, and the host replaces the engine (with its memory full, any later block could fail for
 * want of memory instead of with its own error).
 */
export function sandboxWorkerBody(port: MessagePort, quickjs: typeof QuickJs): void {
  let module: QuickJs.QuickJSWASMModule | null = null;
  let memory: WasmMemory | null = null;
  let memoryCap = 0;
  /** A growth of the engine's memory was refused during the current block. */
  let memoryCapped = false;
  /** An allocation the worker itself made in the engine's memory failed: the engine cannot be trusted. */
  let hostAllocationFailed = false;
  let runtime: QuickJs.QuickJSRuntime | null = null;
  let context: QuickJs.QuickJSContext | null = null;
  /** The engine's own `String.prototype.slice`, taken before any code ran (code may replace the property, not the function). */
  let sliceString: QuickJs.QuickJSHandle | null = null;
  /** The key `length`, made once. */
  let lengthKey: QuickJs.QuickJSHandle | null = null;
  let control = new Int32Array(new SharedArrayBuffer(24));
  let times = new BigInt64Array(control.buffer, 8, 2);
  let data = new Uint8Array(new SharedArrayBuffer(8));
  let printed = '';
  let droppedChars = 0;
  let maxOutputChars = 20_000;
  let callsLeft = 0;
  let callLimit = 0;
  let maxArgumentChars = Number.POSITIVE_INFINITY;
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

  /**
   * `text`, the start of a text `length` characters long, cut to `limit` characters with a note of
   * how many more there were.
   */
  const cut = (text: string, length: number, limit: number, what: string): string =>
    length <= limit ? text : `${text.slice(0, limit)}... [${what} truncated: ${length - limit} more characters]`;

  /** Adds the start of a printed text `length` characters long to the block's output. */
  const append = (text: string, length: number): void => {
    const room = Math.max(0, maxOutputChars - printed.length);
    printed += text.slice(0, room);
    droppedChars += Math.max(0, length - room);
  };

  /**
   * The string a handle holds, and its length; only its first `limit` characters are read out of
   * the engine (which cuts it first), so no code block can make this thread copy a long string.
   */
  const head = (
    vm: QuickJs.QuickJSContext,
    handle: QuickJs.QuickJSHandle,
    limit: number,
  ): { text: string; length: number } => {
    const lengthHandle = vm.getProp(handle, lengthKey as QuickJs.QuickJSHandle);
    const length = vm.getNumber(lengthHandle);
    lengthHandle.dispose();
    if (length <= limit) return { text: vm.getString(handle), length };
    const start = vm.newNumber(0);
    const end = vm.newNumber(limit);
    const part = vm.callFunction(sliceString as QuickJs.QuickJSHandle, handle, start, end);
    start.dispose();
    end.dispose();
    if (part.error) {
      part.error.dispose();
      return { text: '', length };
    }
    const text = vm.getString(part.value);
    part.value.dispose();
    return { text, length };
  };

  const callHost = (app: string, api: string, args: () => { text: string; length: number }): string => {
    if (memoryCapped) {
      return JSON.stringify({ ok: false, status: 507, message: "The sandbox's memory is full." });
    }
    if (callsLeft <= 0) {
      return JSON.stringify({
        ok: false,
        status: 429,
        message: `Too many API calls in one code block (limit ${callLimit}).`,
      });
    }
    const { text: argsText, length } = args();
    if (length > maxArgumentChars) {
      return JSON.stringify({
        ok: false,
        status: 413,
        message: `The arguments of apis.${app}.${api} are ${length} characters as JSON; at most ${maxArgumentChars} are accepted.`,
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

  /**
   * A fresh QuickJS module whose WebAssembly memory can grow to `capBytes` and no further. A
   * refused growth fails the allocation that asked for it (QuickJS throws "out of memory") and is
   * noted for the block's report. Strings the worker copies into the engine's memory are allocated
   * through `_malloc`; when that fails it throws instead of handing out address 0.
   */
  const newModule = async (capBytes: number): Promise<QuickJs.QuickJSWASMModule> => {
    const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: new (size: WasmMemorySize) => WasmMemory } })
      .WebAssembly;
    const wasmMemory = new Memory({ initial: 256, maximum: Math.ceil(capBytes / 65_536) });
    const grow = wasmMemory.grow.bind(wasmMemory);
    wasmMemory.grow = (delta: number): number => {
      try {
        return grow(delta);
      } catch (error) {
        memoryCapped = true;
        throw error;
      }
    };
    const created = await quickjs.newQuickJSWASMModuleFromVariant(
      quickjs.newVariant(quickjs.RELEASE_SYNC, { wasmMemory }),
    );
    const emscripten = (
      created as unknown as { module?: { _malloc?: (size: number) => number; _free?: (at: number) => void } }
    ).module;
    if (emscripten?._malloc && emscripten._free) {
      // The first call replaces the export's lazy stub with the function itself: wrap that one.
      emscripten._free(emscripten._malloc(8));
      const malloc = emscripten._malloc;
      emscripten._malloc = (size: number): number => {
        const at = malloc(size);
        if (at === 0 && size > 0) {
          hostAllocationFailed = true;
          throw new Error('out of memory');
        }
        return at;
      };
    }
    memory = wasmMemory;
    return created;
  };
  const wasmBytes = (): number => memory?.buffer.byteLength ?? 0;

  const stopEngine = (): void => {
    sliceString?.dispose();
    lengthKey?.dispose();
    sliceString = null;
    lengthKey = null;
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
    const stringClass = newContext.getProp(newContext.global, 'String');
    const stringPrototype = newContext.getProp(stringClass, 'prototype');
    sliceString = newContext.getProp(stringPrototype, 'slice');
    lengthKey = newContext.newString('length');
    stringPrototype.dispose();
    stringClass.dispose();
    const allStrings = (handles: QuickJs.QuickJSHandle[]): boolean =>
      handles.every((handle) => newContext.typeof(handle) === 'string');
    const hostCall = newContext.newFunction('__hostCall', (...handles) => {
      const [app, api, args] = handles;
      // The app and API names come from the prelude; only the arguments are the code's.
      const reply =
        app && api && args && handles.length === 3 && allStrings(handles)
          ? callHost(newContext.getString(app), newContext.getString(api), () =>
              head(newContext, args, maxArgumentChars),
            )
          : JSON.stringify({ ok: false, status: 400, message: 'bad bridge call' });
      try {
        return newContext.newString(reply);
      } catch {
        // No room for the reply in the engine's memory (noted by the allocator): the block fails.
        return undefined;
      }
    });
    const hostPrint = newContext.newFunction('__hostPrint', (...handles) => {
      if (!allStrings(handles)) return;
      // Each value is read only as far as the output has room: what lies past it is only counted.
      const room = Math.max(0, maxOutputChars - printed.length);
      const parts = handles.map((handle) => head(newContext, handle, room));
      const length = parts.reduce((sum, part) => sum + part.length, 0) + Math.max(parts.length, 1);
      append(`${parts.map((part) => part.text).join(' ')}\n`, length);
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

  /**
   * Name, message and stack of a thrown value, read without trusting it: the message is cut at the
   * output limit, the name and the stack at sizes no real error reaches (in the engine, before
   * they are copied out of it).
   */
  const thrown = (handle: QuickJs.QuickJSHandle): WorkerError => {
    const vm = context as QuickJs.QuickJSContext;
    const kind = vm.typeof(handle);
    if (kind !== 'object') {
      const prefix = 'thrown value: ';
      const { text, length } =
        kind === 'string'
          ? head(vm, handle, maxOutputChars)
          : { text: kind === 'number' ? String(vm.getNumber(handle)) : kind, length: -1 };
      const message = `${prefix}${text}`;
      const full = length < 0 ? message.length : prefix.length + length;
      return { name: 'Error', message: cut(message, full, maxOutputChars, 'message'), stack: '' };
    }
    const field = (key: string, limit: number): string => {
      try {
        const value = vm.getProp(handle, key);
        const read = vm.typeof(value) === 'string' ? head(vm, value, limit) : { text: '', length: 0 };
        value.dispose();
        return cut(read.text, read.length, limit, key);
      } catch {
        return '';
      }
    };
    return {
      name: field('name', 200) || 'Error',
      message: field('message', maxOutputChars),
      stack: field('stack', 1_000_000).slice(0, 1_000_000),
    };
  };

  const run = (message: Extract<ToWorker, { type: 'run' }>): void => {
    const { code, fileName, timeoutMs, maxApiCalls } = message;
    printed = '';
    droppedChars = 0;
    callsLeft = maxApiCalls;
    callLimit = maxApiCalls;
    maxArgumentChars = message.maxArgumentChars;
    memoryCapped = false;
    const vmRuntime = runtime as QuickJs.QuickJSRuntime;
    const vm = context as QuickJs.QuickJSContext;
    let timedOut = false;
    vmRuntime.setInterruptHandler(() => {
      timedOut ||= engineMs() > timeoutMs;
      return timedOut || memoryCapped;
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
      // Jobs left once the time is up (an endless async loop, say) must not run on in the next
      // block: each is interrupted at its first check, and dropped.
      while (timedOut && vmRuntime.hasPendingJob()) {
        const dropped = vmRuntime.executePendingJobs();
        if (dropped.error) dropped.error.dispose();
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
        memoryCapped,
        wasmBytes: wasmBytes(),
      });
      return;
    }
    pauseClock();
    vmRuntime.setInterruptHandler(() => false);
    send({
      type: 'done',
      printed,
      droppedChars,
      error,
      timedOut,
      engineFailed: hostAllocationFailed,
      memoryCapped,
      wasmBytes: wasmBytes(),
    });
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
          stopEngine();
          if (!module || memoryCap !== message.memoryCapBytes) {
            module = await newModule(message.memoryCapBytes);
            memoryCap = message.memoryCapBytes;
          }
          startEngine(message, module);
          send({ type: 'ready', wasmBytes: wasmBytes() });
        } else if (message.type === 'run') {
          if (!context || !init) throw new Error('the sandbox worker was not initialised');
          run(message);
        } else {
          stopEngine();
          send({ type: 'ready', wasmBytes: wasmBytes() });
        }
      } catch (error) {
        send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
}
