import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type Harness, readJson } from '@harness-s/core';
import { createHarness } from '@harness-s/harness-dsh';

/** Loads a sibling pool folder: every `*.json` harness spec in it (index and summary files excepted). */
export async function loadPoolHarnesses(dir: string, env: string): Promise<Harness[]> {
  let names: string[];
  try {
    names = (await readdir(dir))
      .filter((name) => name.endsWith('.json') && !['index.json', 'summary.json'].includes(name))
      .sort();
  } catch (error) {
    throw new ConfigError(`--pool: cannot read ${dir}: ${(error as Error).message}`, { code: 'bad-pool' });
  }
  const harnesses = await Promise.all(
    names.map(async (name) => createHarness(await readJson(join(dir, name)), join(dir, name))),
  );
  const pool = harnesses.filter((harness) => harness.spec.parent !== null && harness.spec.env === env);
  if (pool.length === 0) throw new ConfigError(`--pool: ${dir} holds no variant for env ${env}`, { code: 'bad-pool' });
  return pool;
}
