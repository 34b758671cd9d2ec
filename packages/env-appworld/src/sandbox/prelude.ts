/**
 * The script that runs first in every sandbox context. It builds `apis.<app>.<api>(args)` and
 * `print(...)` on top of two host functions that take and return strings only, then removes the
 * host functions from the global object, so agent code reaches the host through nothing else.
 * References to JSON are captured first, so agent code that replaces `JSON.parse` only breaks
 * its own view, not the bridge.
 *
 * Time is frozen at the task's datetime (AppWorld freezes time too): `Date.now()` and
 * `new Date()` return it.
 */
export function preludeSource(apiNames: Record<string, string[]>, now: string): string {
  return `(function (hostCall, hostPrint) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const names = parse(${JSON.stringify(JSON.stringify(apiNames))});
  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.name = 'ApiError';
      this.status = status;
    }
  }
  const describe = (value) => {
    if (typeof value === 'string') return value;
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      return String(value);
    }
    try {
      const text = stringify(value, null, 2);
      return text === undefined ? String(value) : text;
    } catch (error) {
      return String(value);
    }
  };
  const print = (...values) => {
    hostPrint(values.map(describe).join(' '));
  };
  const apis = {};
  for (const app of Object.keys(names)) {
    const group = {};
    for (const api of names[app]) {
      group[api] = function (args) {
        if (arguments.length > 1) {
          throw new TypeError('apis.' + app + '.' + api + ' takes one object of named arguments, e.g. ({name: value})');
        }
        const argsText = args === undefined ? '{}' : stringify(args);
        if (typeof argsText !== 'string') throw new TypeError('the arguments must be one JSON object');
        const reply = parse(hostCall(app, api, argsText));
        if (!reply.ok) throw new ApiError(reply.status, reply.message);
        return reply.value;
      };
    }
    apis[app] = Object.freeze(group);
  }
  const constant = (value) => ({ value, writable: false, enumerable: true, configurable: false });
  Object.defineProperty(globalThis, 'apis', constant(Object.freeze(apis)));
  Object.defineProperty(globalThis, 'print', constant(print));
  Object.defineProperty(globalThis, 'console', constant(Object.freeze({ log: print, info: print, warn: print, error: print })));
  // Not a subclass, whose prototype chain would lead back to the real Date: the one constructor
  // reachable from anywhere (Date, Date.prototype.constructor) is this one.
  const RealDate = Date;
  const frozen = RealDate.parse(${JSON.stringify(`${now}Z`)});
  function FrozenDate(...args) {
    if (new.target === undefined) return new RealDate(frozen).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [frozen] : args, new.target);
  }
  FrozenDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FrozenDate, writable: true, configurable: true });
  FrozenDate.now = () => frozen;
  FrozenDate.parse = RealDate.parse;
  FrozenDate.UTC = RealDate.UTC;
  globalThis.Date = FrozenDate;
})(globalThis.__hostCall, globalThis.__hostPrint);
delete globalThis.__hostCall;
delete globalThis.__hostPrint;
`;
}
