import { StringDecoder } from 'node:string_decoder';

/** The line that stands in for the middle of an output that was cut. */
export const elisionLine = (count: number): string => `\n[... ${count} characters elided ...]\n`;

/**
 * Collects a command's output in bounded memory: the first half of the budget is kept as it
 * arrives, the last half as a sliding tail, and everything in between is only counted. A command
 * that prints gigabytes therefore costs at most `maxChars` of memory, and its beginning (usually
 * the error) and end (usually the summary) both survive.
 */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(readonly maxChars: number = Number.POSITIVE_INFINITY) {
    this.headLimit = Number.isFinite(maxChars) ? Math.ceil(maxChars / 2) : Number.POSITIVE_INFINITY;
    this.tailLimit = Number.isFinite(maxChars) ? Math.floor(maxChars / 2) : 0;
  }

  /** Appends a chunk (bytes are decoded as UTF-8, also across chunk boundaries). */
  push(chunk: Buffer | string): void {
    this.append(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  private append(text: string): void {
    if (text.length === 0) return;
    const room = this.headLimit - this.head.length;
    if (room > 0) {
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text.length === 0) return;
    }
    this.tail += text;
    if (this.tail.length > this.tailLimit) {
      const excess = this.tail.length - this.tailLimit;
      this.dropped += excess;
      this.tail = this.tail.slice(excess);
    }
  }

  /** Characters seen but not kept. */
  get truncatedChars(): number {
    return this.dropped;
  }

  /** The kept output; when something was cut, an elision line with its size sits in the middle. */
  text(): string {
    this.append(this.decoder.end());
    return this.dropped > 0 ? this.head + elisionLine(this.dropped) + this.tail : this.head + this.tail;
  }
}

/** Cuts a finished text the way `HeadTailBuffer` cuts a stream. */
export function cutHeadAndTail(text: string, maxChars: number): { text: string; truncatedChars: number } {
  const buffer = new HeadTailBuffer(maxChars);
  buffer.push(text);
  return { text: buffer.text(), truncatedChars: buffer.truncatedChars };
}
