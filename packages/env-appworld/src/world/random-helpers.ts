import { createHash } from 'node:crypto';
import { Random } from '@harness-s/core';

/** A seeded random source with the helpers the generator needs. */
export class Draw {
  private readonly random: Random;

  constructor(seed: number) {
    this.random = new Random(seed);
  }

  /** Uniform integer in [low, high]. */
  int(low: number, high: number): number {
    return low + this.random.int(high - low + 1);
  }

  /** A uniformly chosen item. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.random.int(items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** The items in a random order (Fisher-Yates on a copy). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i -= 1) {
      const j = this.random.int(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }

  /** `count` distinct items. */
  sample<T>(items: readonly T[], count: number): T[] {
    return this.shuffle(items).slice(0, Math.min(count, items.length));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.random.next() < p;
  }

  /** An amount in [low, high] rounded to cents. */
  money(low: number, high: number): number {
    return Math.round((low + this.random.next() * (high - low)) * 100) / 100;
  }

  /** A password of letters and digits, like the ones people keep in a password manager. */
  password(): string {
    const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    let text = '';
    for (let i = 0; i < 12; i += 1) text += alphabet[this.random.int(alphabet.length)];
    return text;
  }

  /** A string of decimal digits. */
  digits(count: number): string {
    let text = '';
    for (let i = 0; i < count; i += 1) text += String(this.random.int(10));
    return text;
  }
}

/** How passwords are stored: a salted SHA-256, so state checks can verify a reset without the plain text. */
export function passwordHash(app: string, userId: number, password: string): string {
  return createHash('sha256').update(`${app}\u0000${userId}\u0000${password}`).digest('hex');
}

/** The world's clock: every task runs at this frozen time unless it says otherwise. */
export const worldNow = '2024-06-14T10:00:00';

/** A timestamp `days` (fractional allowed) before `now`, as `YYYY-MM-DDTHH:MM:SS`. */
export function daysBefore(now: string, days: number): string {
  const time = Date.parse(`${now}Z`) - Math.round(days * 86_400_000);
  return new Date(time).toISOString().slice(0, 19);
}

/** A short, stable hex id derived from text (scenario ids). */
export function hexId(text: string, length = 7): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
