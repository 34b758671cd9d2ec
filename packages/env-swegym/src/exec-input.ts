import { randomBytes } from 'node:crypto';
import { shellQuote } from './shell.js';

/**
 * Holds back the standard input of a `docker exec` until its command is running: input sent
 * before the daemon has wired the exec up can be lost. The command first prints a notice with a
 * random marker on stderr (`wrap`); stderr goes through `filter`, which takes the notice out and
 * calls `onReady` when it has passed, and `flush` returns what was held if it never came (a
 * command that could not start).
 */
export class InputGate {
  private readonly marker = Buffer.from(`harness-s-stdin-ready-${randomBytes(6).toString('hex')}\n`);
  /** stderr seen before the notice; null once it has passed. */
  private held: Buffer | null = Buffer.alloc(0);

  constructor(private readonly onReady: () => void) {}

  /** The command, after the notice. */
  wrap(command: string): string {
    return `printf '%s' ${shellQuote(this.marker.toString())} >&2\n${command}`;
  }

  /** What of a stderr chunk belongs to the command's own output. */
  filter(chunk: Buffer): Buffer {
    if (this.held === null) return chunk;
    this.held = Buffer.concat([this.held, chunk]);
    const at = this.held.indexOf(this.marker);
    if (at < 0) return Buffer.alloc(0);
    const own = Buffer.concat([this.held.subarray(0, at), this.held.subarray(at + this.marker.length)]);
    this.held = null;
    this.onReady();
    return own;
  }

  /** What is still held back because the notice never came. */
  flush(): Buffer {
    const held = this.held ?? Buffer.alloc(0);
    this.held = null;
    return held;
  }
}
