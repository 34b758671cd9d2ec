import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type Harness } from '@harness-s/core';
import { createHarness, loadPool } from '@harness-s/harness-dsh';

/**
 * Successes of each variant on the validation tasks, from the pool's `index.json` as `harness-s
 * evolve` writes it (empty for a pool folder made by hand).
 */
async function validationSuccesses(dir: string): Promise<Map<string, number>> {
  let text: string;
  try {
    text = await readFile(join(dir, 'index.json'), 'utf8');
  } catch {
    return new Map();
  }
  let index: { members?: Array<{ id: string; validation?: { perTask?: Record<string, number> } }> };
  try {
    index = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`--pool: ${join(dir, 'index.json')} is not JSON (${(error as Error).message})`, {
      code: 'bad-pool',
    });
  }
  return new Map(
    (index.members ?? []).map((member) => [
      member.id,
      Object.values(member.validation?.perTask ?? {}).reduce((sum, value) => sum + value, 0),
    ]),
  );
}

/**
 * Loads a sibling pool folder for an environment, best variants first (by validation successes
 * recorded in `index.json`, then by id): every variant is checked (schema, H0 plus its patch,
 * protocol compliance) by the harness package, and a bad file is named with its field.
 */
export async function loadPoolHarnesses(dir: string, env: string): Promise<Harness[]> {
  if (
    existsSync(join(dir, 'config.json')) &&
    (existsSync(join(dir, 'summary.json')) || existsSync(join(dir, 'checkpoints')))
  )
    throw new ConfigError(
      `--pool: ${dir} is a run's folder, not a pool (a folder of variant files, as evolve writes)`,
      {
        code: 'bad-pool',
      },
    );
  if (existsSync(join(dir, 'profiles.json')) && !existsSync(join(dir, 'index.json')))
    throw new ConfigError(
      `--pool: ${dir} holds behaviour profiles (profiles.json), not a pool; they go to --profiles, and --pool takes the folder evolve wrote`,
      { code: 'bad-pool' },
    );
  const specs = (await loadPool(dir)).filter((spec) => spec.parent !== null && spec.env === env);
  if (specs.length === 0) throw new ConfigError(`--pool: ${dir} holds no variant for env ${env}`, { code: 'bad-pool' });
  const successes = await validationSuccesses(dir);
  const score = (id: string) => successes.get(id) ?? -1;
  specs.sort((a, b) => score(b.id) - score(a.id) || a.id.localeCompare(b.id));
  return specs.map((spec) => createHarness(spec, `${dir}/${spec.id}.json`));
}
