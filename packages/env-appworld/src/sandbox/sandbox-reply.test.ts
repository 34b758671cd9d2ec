import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { preludeSource } from './prelude.js';
import { SandboxWorker } from './sandbox-worker.js';

const settings = {
  prelude: preludeSource({ music: ['echo'] }, '2024-06-14T10:00:00'),
  memoryBytes: 16 * 1024 * 1024,
  stackBytes: 512 * 1024,
  maxOutputChars: 1_000,
};
const limits = { timeoutMs: 2_000, killAfterMs: 4_000, maxApiCalls: 10 };

/** Echoes the call's arguments back. */
const echo = (argsText: string): string => JSON.stringify({ ok: true, value: JSON.parse(argsText) });

let worker: SandboxWorker;
beforeEach(async () => {
  worker = SandboxWorker.spawn();
  await worker.init(settings);
});
afterEach(async () => {
  await worker.terminate();
});

/** The worker's shared control memory: slot 0 is the reply flag the worker waits on. */
const controlOf = (target: SandboxWorker): Int32Array => (target as unknown as { controlView: Int32Array }).controlView;
/** Slot 1 is when the engine's current running stretch began, 0 while it waits for the host. */
const engineTimesOf = (target: SandboxWorker): BigInt64Array =>
  (target as unknown as { engineTimes: BigInt64Array }).engineTimes;

/** Busy-waits (the host thread is blocked, as in an API call) until `done` or `ms` have passed. */
function spinUntil(done: () => boolean, ms: number): boolean {
  const until = performance.now() + ms;
  while (performance.now() < until) if (done()) return true;
  return done();
}

/**
 * Wakes the worker once it waits for the reply, as a notify of the previous reply does when the
 * host thread is descheduled between setting the flag and notifying; then, before replying, gives
 * a worker that takes the wake-up for its reply time to read it and run on (its engine clock
 * starts and stops again). False if the worker never waited.
 */
function wakeEarly(target: SandboxWorker): boolean {
  const control = controlOf(target);
  const times = engineTimesOf(target);
  if (!spinUntil(() => Atomics.notify(control, 0, 1) === 1, 2_000)) return false;
  spinUntil(() => Atomics.load(times, 1) !== 0n, 250) && spinUntil(() => Atomics.load(times, 1) === 0n, 250);
  return true;
}

describe('sandbox worker: API replies', () => {
  it('gives each call its own reply when a wake-up of the previous reply arrives late', async () => {
    let calls = 0;
    let wokenEarly = 0;
    const result = await worker.run(
      [
        'var first = apis.music.echo({ call: 1 });',
        'var second = apis.music.echo({ call: 2 });',
        'var third = apis.music.echo({ call: 3 });',
        'print(first.call, second.call, third.call);',
      ].join('\n'),
      '<code>',
      limits,
      (_app, _api, argsText) => {
        calls += 1;
        // While the worker waits for this reply, the late notify of the one before reaches it.
        if (calls >= 2 && wakeEarly(worker)) wokenEarly += 1;
        return echo(argsText);
      },
    );
    expect(result).toMatchObject({ kind: 'finished', printed: '1 2 3\n', error: null });
    expect(wokenEarly).toBe(2);
  });

  it('answers many calls in order while wake-ups arrive at random', async () => {
    const control = controlOf(worker);
    let stop = false;
    // Stray wake-ups from the host thread between the replies.
    const stray = (): void => {
      if (stop) return;
      Atomics.notify(control, 0);
      setImmediate(stray);
    };
    setImmediate(stray);
    try {
      const result = await worker.run(
        [
          'var wrong = [];',
          'for (var i = 0; i < 200; i += 1) {',
          '  var reply = apis.music.echo({ i: i });',
          '  if (reply.i !== i) wrong.push(i + ":" + reply.i);',
          '}',
          'print(wrong.length === 0 ? "all right" : wrong.slice(0, 5).join(" "));',
        ].join('\n'),
        '<code>',
        { ...limits, maxApiCalls: 200 },
        (_app, _api, argsText) => echo(argsText),
      );
      expect(result).toMatchObject({ kind: 'finished', printed: 'all right\n', error: null });
    } finally {
      stop = true;
    }
  });
});
