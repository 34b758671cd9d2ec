import { ConfigError, type Harness } from '@harness-s/core';
import { createHarness, loadPool } from '@harness-s/harness-dsh';

/**
 * Loads a sibling pool folder for an environment: every variant is checked (schema, H0 plus its
 * patch, protocol compliance) by the harness package, and a bad file is named with its field.
 */
export async function loadPoolHarnesses(dir: string, env: string): Promise<Harness[]> {
  const specs = (await loadPool(dir)).filter((spec) => spec.parent !== null && spec.env === env);
  if (specs.length === 0) throw new ConfigError(`--pool: ${dir} holds no variant for env ${env}`, { code: 'bad-pool' });
  return specs.map((spec) => createHarness(spec, `${dir}/${spec.id}.json`));
}
