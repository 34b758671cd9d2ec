import { createHash } from 'node:crypto';

/** A 32-bit seed derived from any parts (run seed, task id, harness id, attempt). */
export function deriveSeed(...parts: ReadonlyArray<string | number>): number {
  const digest = createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  return digest.readUInt32LE(0);
}

/** A small, fast, seedable generator (sfc32); its whole state can be saved and restored. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 12; i += 1) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  state(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  static fromState(state: readonly [number, number, number, number]): Random {
    const random = new Random(0);
    [random.a, random.b, random.c, random.d] = state;
    return random;
  }
}
