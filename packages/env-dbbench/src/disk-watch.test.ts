import { describe, expect, it } from 'vitest';
import { DiskWatch } from './disk-watch.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DiskWatch', () => {
  it('measures only statements that run past the delay, all in one query, and stops those over the limit', async () => {
    const asked: string[][] = [];
    const sizes = new Map([
      ['a', 100],
      ['b', 100],
    ]);
    const watch = new DiskWatch({
      delayMs: 40,
      intervalMs: 20,
      measure: async (keys) => {
        asked.push(keys);
        return new Map(keys.flatMap((key) => (sizes.has(key) ? [[key, sizes.get(key) ?? 0] as const] : [])));
      },
    });
    const over: Array<[string, number]> = [];
    const quick = watch.watch({ key: 'quick', baseBytes: 0, limitBytes: 10, onOver: () => over.push(['quick', 0]) });
    await wait(5);
    quick();
    watch.watch({ key: 'a', baseBytes: 50, limitBytes: 60, onOver: (bytes) => over.push(['a', bytes]) });
    const unwatchB = watch.watch({
      key: 'b',
      baseBytes: 50,
      limitBytes: 60,
      onOver: (bytes) => over.push(['b', bytes]),
    });
    await wait(120);
    // Both within the limit so far (100 - 50 <= 60), measured together, several times; 'quick' never.
    expect(over).toEqual([]);
    expect(asked.length).toBeGreaterThan(1);
    expect(asked[0]).toEqual(['a', 'b']);
    expect(asked.flat()).not.toContain('quick');
    sizes.set('a', 111);
    await wait(80);
    expect(over).toEqual([['a', 61]]);
    unwatchB();
    const measured = asked.length;
    await wait(80);
    // Nothing is watched any more: no more queries.
    expect(asked.length).toBe(measured);
    expect(watch.size).toBe(0);
    watch.close();
  });

  it('skips a failing measurement and goes on measuring', async () => {
    let calls = 0;
    const watch = new DiskWatch({
      delayMs: 0,
      intervalMs: 10,
      measure: async (keys) => {
        calls += 1;
        if (calls === 1) throw new Error('server busy');
        return new Map(keys.map((key) => [key, 1000]));
      },
    });
    const over = await new Promise<number>((resolve) =>
      watch.watch({ key: 'k', baseBytes: 0, limitBytes: 10, onOver: resolve }),
    );
    expect(over).toBe(1000);
    expect(calls).toBe(2);
    watch.close();
  });
});
