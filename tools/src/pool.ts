import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Harness } from '@harness-s/core';
import { createHarness, loadPool } from '@harness-s/harness-dsh';

/**
 * Loads a sibling pool folder for an environment, best variants first (`loadPool`'s order: by
 * validation successes recorded in `index.json`, then by id): every variant is checked (schema, H0 plus its patch,
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
  return specs.map((spec) => createHarness(spec, `${dir}/${spec.id}.json`));
}
