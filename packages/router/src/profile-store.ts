import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, parseWith, readJson, writeJsonAtomic } from '@harness-s/core';
import { ProfileSet } from './profiles.js';
import { sumSignatures } from './signatures.js';

/** The files a profiles folder holds: what `writeProfiles` writes. */
export const profileFiles = ['profiles.json', 'summary.md'] as const;

/** Writes `profiles.json` and a readable `summary.md` into a folder. */
export async function writeProfiles(dir: string, profiles: ProfileSet): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeJsonAtomic(join(dir, profileFiles[0]), profiles);
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
    ...h0FailureLines(profiles),
  ];
  await writeFile(join(dir, profileFiles[1]), lines.join('\n'));
}

/** How H0's attempts failed the validation tasks, by failure signature, when profiling recorded it. */
function h0FailureLines(profiles: ProfileSet): string[] {
  const recorded = profiles.tasks.filter((task) => task.h0Failures !== undefined);
  if (recorded.length === 0) return [];
  const attempts = sumSignatures(recorded.map((task) => task.h0Failures));
  const tasks = (signature: string) => recorded.filter((task) => (task.h0Failures?.[signature] ?? 0) > 0).length;
  const rows = Object.entries(attempts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return [
    "## How H0's attempts failed",
    '',
    ...(rows.length === 0
      ? ['H0 failed no attempt.']
      : [
          '| failure signature | failed attempts | tasks |',
          '|---|---|---|',
          ...rows.map(([signature, count]) => `| ${signature} | ${Number(count.toFixed(2))} | ${tasks(signature)} |`),
        ]),
    '',
  ];
}

/** Reads and validates `profiles.json` from a folder (or the file itself). */
export async function readProfiles(path: string, expected: { env?: string } = {}): Promise<ProfileSet> {
  const file = path.endsWith('.json') ? path : join(path, 'profiles.json');
  if (!path.endsWith('.json') && !existsSync(file)) await refuseProfilesFolder(path);
  const profiles = parseWith(ProfileSet, await readJson(file), file);
  if (expected.env !== undefined && profiles.env !== expected.env)
    throw new ConfigError(
      `profiles: ${file} were anchored on ${profiles.env}, not ${expected.env}: give profiles of ${expected.env} (\`harness-s profile --env ${expected.env}\`)`,
      { code: 'profiles-of-another-env' },
    );
  return profiles;
}

/**
 * Names what is wrong with a profiles folder without `profiles.json`: a missing folder, or one
 * whose subfolders hold profiles (a reproduction's `profiles/ENV`, with `initial` and one folder
 * per trained seed), naming them.
 */
async function refuseProfilesFolder(path: string): Promise<never> {
  if (!existsSync(path)) throw new ConfigError(`profiles: ${path} does not exist`, { code: 'missing-profiles' });
  const entries = await readdir(path, { withFileTypes: true });
  const inside = entries
    .filter((entry) => entry.isDirectory() && existsSync(join(path, entry.name, 'profiles.json')))
    .map((entry) => entry.name)
    .sort();
  throw new ConfigError(
    inside.length > 0
      ? `profiles: ${path} holds no profiles.json, but its folders ${inside.join(', ')} do: give one of them, e.g. ${join(path, inside[0] as string)}`
      : `profiles: ${path} holds no profiles.json (written by harness-s profile, or by train and reproduce)`,
    { code: 'missing-profiles' },
  );
}
