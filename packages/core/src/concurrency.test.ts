import { describe, expect, it } from 'vitest';
import { mapConcurrent } from './concurrency.js';

describe('mapConcurrent', () => {
  it('keeps order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapConcurrent([5, 1, 4, 2, 3, 0], 3, async (value) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, value * 3));
      inFlight -= 1;
      return value * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(3);
  });

  it('stops starting work after a failure and rethrows it', async () => {
    const started: number[] = [];
    await expect(
      mapConcurrent([1, 2, 3, 4, 5], 1, async (value) => {
        started.push(value);
        if (value === 2) throw new Error('boom');
        return value;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('refuses a bad limit', async () => {
    await expect(mapConcurrent([1], 0, async (value) => value)).rejects.toThrow(RangeError);
  });
});
