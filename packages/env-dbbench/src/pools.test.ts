import { describe, expect, it } from 'vitest';
import { SlotPool } from './slot-pool.js';
import { StorePool } from './store-pool.js';

/** A counter of made and destroyed resources, with failures on demand. */
function resources() {
  const state = { made: 0, destroyed: [] as number[], failNext: false };
  return {
    state,
    create: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (state.failNext) {
        state.failNext = false;
        throw new Error('server said no');
      }
      state.made += 1;
      return state.made;
    },
    destroy: async (slot: number) => {
      state.destroyed.push(slot);
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('SlotPool', () => {
  it('makes spares ahead, reuses clean slots, destroys discarded ones and waits at the limit', async () => {
    const { state, create, destroy } = resources();
    const pool = new SlotPool({ maxSlots: 2, spareSlots: 1, create, destroy });
    pool.fillSpares();
    await settle();
    expect(state.made).toBe(1);
    const first = await pool.lease();
    const second = await pool.lease();
    expect(pool.inUse).toBe(2);
    let third: number | undefined;
    const waiting = pool.lease().then((slot) => (third = slot));
    await settle();
    expect(third).toBeUndefined();
    await pool.release(first, false);
    await waiting;
    expect(third).toBe(first);
    await pool.release(second, true);
    expect(state.destroyed).toEqual([second]);
    await pool.release(third as number, false);
    expect(pool.inUse).toBe(0);
    await pool.close();
    expect(state.destroyed.length).toBe(state.made);
    await expect(pool.lease()).rejects.toThrow(/closed/);
  });

  it('turns a failure to make a slot into a retryable infrastructure error', async () => {
    const { state, create, destroy } = resources();
    const pool = new SlotPool({ maxSlots: 1, spareSlots: 0, create, destroy });
    state.failNext = true;
    await expect(pool.lease()).rejects.toMatchObject({ category: 'infrastructure', code: 'db-session-failed' });
    expect(await pool.lease()).toBe(1);
    await pool.close();
  });
});

describe('StorePool', () => {
  it('gives a kept store of the same task without work, and an empty one otherwise', async () => {
    const { state, create, destroy } = resources();
    const pool = new StorePool({ maxStores: 3, spareEmpty: 1, create, destroy });
    const first = await pool.lease('dev-1');
    expect(first.fresh).toBe(true);
    await pool.release(first.store, 'dev-1', false);
    expect(await pool.lease('dev-1')).toEqual({ store: first.store, fresh: false });
    const other = await pool.lease('dev-2');
    expect(other.fresh).toBe(true);
    expect(other.store).not.toBe(first.store);
    await pool.release(other.store, 'dev-2', true);
    expect(state.destroyed).toEqual([other.store]);
    await pool.release(first.store, 'dev-1', false);
    const idle = await pool.close();
    expect(idle).toContain(first.store);
  });

  it('drops the least recently used free stores beyond its limit', async () => {
    const { state, create, destroy } = resources();
    const pool = new StorePool({ maxStores: 2, spareEmpty: 0, create, destroy });
    const a = await pool.lease('a');
    const b = await pool.lease('b');
    await pool.release(a.store, 'a', false);
    await pool.release(b.store, 'b', false);
    const c = await pool.lease('c');
    await settle();
    expect(state.destroyed).toEqual([a.store]);
    expect((await pool.lease('b')).fresh).toBe(false);
    expect((await pool.lease('a')).fresh).toBe(true);
    await pool.release(c.store, 'c', false);
    await pool.close();
  });
});
