import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handProfiles } from './__fixtures__/hand-profiles.js';
import { readProfiles, writeProfiles } from './profile-store.js';

describe('profile store', () => {
  let dir = '';
  const profiles = handProfiles({ h0: { a: 1, b: 0 }, 'v-1': { a: 2, b: 4 } });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-s-profile-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back what it wrote, from the folder or the file', async () => {
    await writeProfiles(join(dir, 'one'), profiles);
    expect(await readProfiles(join(dir, 'one'))).toEqual(profiles);
    expect(await readProfiles(join(dir, 'one', 'profiles.json'))).toEqual(profiles);
    // Profiles of another environment are refused where the environment is known.
    expect(await readProfiles(join(dir, 'one'), { env: profiles.env })).toEqual(profiles);
    await expect(readProfiles(join(dir, 'one'), { env: 'elsewhere' })).rejects.toThrow(
      `were anchored on ${profiles.env}, not elsewhere: give profiles of elsewhere`,
    );
  });

  it("names a reproduction's profiles folder's subfolders instead of a missing file", async () => {
    const reproduction = join(dir, 'profiles', 'dbbench');
    await writeProfiles(join(reproduction, 'trained-seed-1'), profiles);
    await writeProfiles(join(reproduction, 'initial'), profiles);
    await expect(readProfiles(reproduction)).rejects.toThrow(
      `profiles: ${reproduction} holds no profiles.json, but its folders initial, trained-seed-1 do: give one of them, e.g. ${join(reproduction, 'initial')}`,
    );
    await mkdir(join(dir, 'empty'));
    await expect(readProfiles(join(dir, 'empty'))).rejects.toThrow(/empty holds no profiles\.json \(written by/);
    await expect(readProfiles(join(dir, 'nowhere'))).rejects.toThrow(/nowhere does not exist/);
  });

  it('keeps how H0 failed each validation task, and sums it up in the readable summary', async () => {
    const failures: Record<string, Record<string, number>> = {
      a: { 'answer-formatting': 1 },
      b: { 'answer-formatting': 1.5, 'error-recovery': 2 },
    };
    const recorded = {
      ...profiles,
      tasks: profiles.tasks.map((task) => ({ ...task, h0Failures: failures[task.id] ?? {} })),
    };
    await writeProfiles(join(dir, 'failures'), recorded);
    expect(await readProfiles(join(dir, 'failures'))).toEqual(recorded);
    const summary = await readFile(join(dir, 'failures', 'summary.md'), 'utf8');
    expect(summary).toContain("## How H0's attempts failed");
    expect(summary).toContain('| answer-formatting | 2.5 | 2 |\n| error-recovery | 2 | 1 |');
    // Profiles that recorded nothing say nothing about it.
    await writeProfiles(join(dir, 'plain'), profiles);
    expect(await readFile(join(dir, 'plain', 'summary.md'), 'utf8')).not.toContain('How H0');
  });
});
