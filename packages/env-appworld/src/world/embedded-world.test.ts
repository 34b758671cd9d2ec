import { describe, expect, it } from 'vitest';
import { changedTables } from '../evaluation/change-log.js';
import { snapshotState } from '../evaluation/state-diff.js';
import { EmbeddedWorld } from './embedded-world.js';

describe("a task's initial state", () => {
  it("hashes as the whole state does, reusing the base world's hashes for tables its setup left alone", () => {
    const world = EmbeddedWorld.forSeed();
    let setups = 0;
    for (const { task, spec } of world.tasks) {
      const { snapshot } = world.initialState(task.id);
      const db = world.openState(task.id);
      try {
        // Every table's records and hash, as hashing the whole state gives them.
        expect(snapshot).toEqual(snapshotState(db));
        // The episode's change log starts empty, whatever the setup wrote.
        expect(changedTables(db)).toEqual([]);
      } finally {
        db.close();
      }
      if (spec.setup) setups += 1;
    }
    // The check covers tasks whose setup writes, not only the base world.
    expect(setups).toBeGreaterThan(10);
  });
});
