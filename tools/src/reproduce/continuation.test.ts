import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinEarlierScope } from './continuation.js';

describe('joinEarlierScope', () => {
  it("keeps the earlier invocations' environments, seeds, budgets and creation time", async () => {
    const root = await mkdtemp(join(tmpdir(), 'scope-'));
    const now = { envs: ['dbbench'], seeds: [1], budgets: { dbbench: { steps: 6 } }, createdAt: 'now' };
    // A new folder: this invocation's scope as it is.
    expect(await joinEarlierScope(root, now)).toEqual(now);

    await writeFile(
      join(root, 'config.json'),
      JSON.stringify({
        envs: ['dbbench', 'appworld'],
        seeds: [2, 3],
        budgets: { dbbench: { steps: 12 }, appworld: { steps: 12 } },
        createdAt: 'then',
      }),
    );
    expect(await joinEarlierScope(root, now)).toEqual({
      envs: ['dbbench', 'appworld'],
      seeds: [1, 2, 3],
      // This invocation's budget wins for its environment (refuseOtherSettings has held it equal).
      budgets: { dbbench: { steps: 6 }, appworld: { steps: 12 } },
      createdAt: 'then',
      continuedAt: 'now',
    });
  });
});
