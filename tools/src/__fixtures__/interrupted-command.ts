/**
 * A command that listens for interrupts, for interrupts.test.ts: prints `working`, waits for its
 * signal, then takes `argv[2]` ms to close (as removing containers does) and prints `closed`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { listenForInterrupts } from '../interrupts.js';

const closeMs = Number(process.argv[2] ?? 1000);
const interrupts = listenForInterrupts({ leftovers: 'run the cleanup', relayWindowMs: 300 });
process.stdout.write('working\n');
// The work: it runs until interrupted.
const work = setInterval(() => undefined, 1000);
try {
  await new Promise((resolve) => interrupts.signal.addEventListener('abort', resolve, { once: true }));
  clearInterval(work);
  process.stdout.write(`aborted: ${(interrupts.signal.reason as Error).message}\n`);
} finally {
  await interrupts.releaseAfter(async () => {
    await sleep(closeMs);
    process.stdout.write('closed\n');
  });
}
