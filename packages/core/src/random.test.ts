import { describe, expect, it } from 'vitest';
import { deriveSeed, Random } from './random.js';

describe('Random', () => {
  it('repeats its sequence for a seed and differs across seeds', () => {
    const a = new Random(42);
    const b = new Random(42);
    const c = new Random(43);
    const sequenceA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(sequenceA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(sequenceA);
    for (const value of sequenceA) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it('resumes exactly from a saved state', () => {
    const random = new Random(7);
    random.next();
    const saved = Random.fromState(random.state());
    expect(Array.from({ length: 5 }, () => saved.next())).toEqual(Array.from({ length: 5 }, () => random.next()));
  });

  it('is roughly uniform', () => {
    const random = new Random(1);
    const buckets = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i += 1) buckets[random.int(4)] = (buckets[random.int(4)] ?? 0) + 1;
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });
});

describe('deriveSeed', () => {
  it('depends on every part and on their order', () => {
    expect(deriveSeed(1, 'dev-3', 'h0', 0)).toBe(deriveSeed(1, 'dev-3', 'h0', 0));
    expect(deriveSeed(1, 'dev-3', 'h0', 0)).not.toBe(deriveSeed(1, 'dev-3', 'h0', 1));
    expect(deriveSeed('ab', 'c')).not.toBe(deriveSeed('a', 'bc'));
  });
});
