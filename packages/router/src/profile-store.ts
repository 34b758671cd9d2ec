import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseWith, readJson, writeJsonAtomic } from '@harness-s/core';
import { ProfileSet } from './profiles.js';

/** Writes `profiles.json` and a readable `summary.md` into a folder. */
export async function writeProfiles(dir: string, profiles: ProfileSet): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeJsonAtomic(join(dir, 'profiles.json'), profiles);
  const lines = [
    `# Behaviour profiles (${profiles.env})`,
    '',
    `Anchored on policy ${profiles.policyVersion} (step ${profiles.anchoredAtStep}), ${profiles.tasks.length} validation tasks x ${profiles.k} attempts, paired seeds.`,
    '',
    '| harness | direction | success | helps | hurts | summary | written by |',
    '|---|---|---|---|---|---|---|',
    ...[profiles.h0, ...profiles.variants].map(
      (profile) =>
        `| ${profile.harnessId} | ${profile.direction ?? '-'} | ${(profile.successRate * 100).toFixed(1)}% | ${profile.helps.length} | ${profile.hurts.length} | ${profile.summary.replaceAll('|', '/')} | ${profile.summaryBy} |`,
    ),
    '',
  ];
  await writeFile(join(dir, 'summary.md'), lines.join('\n'));
}

/** Reads and validates `profiles.json` from a folder (or the file itself). */
export async function readProfiles(path: string): Promise<ProfileSet> {
  const file = path.endsWith('.json') ? path : join(path, 'profiles.json');
  return parseWith(ProfileSet, await readJson(file), file);
}
