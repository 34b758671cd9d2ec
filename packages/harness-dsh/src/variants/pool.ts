import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type HarnessSpec, InputError, readJson, writeJsonAtomic } from '@harness-s/core';
import { type VariantCheckOptions, validateVariant } from './compliance.js';

/** Files of a pool folder that are not variants. */
export const poolReservedFiles = new Set(['index.json', 'summary.json']);

/** The file a pool member is stored in. */
export const variantFile = (dir: string, id: string): string => join(dir, `${id}.json`);

/** Writes one variant as `DIR/<id>.json` (atomically). */
export async function writeVariant(dir: string, spec: HarnessSpec): Promise<string> {
  const path = variantFile(dir, spec.id);
  await writeJsonAtomic(path, spec);
  return path;
}

/**
 * Loads the sibling harness pool of a folder written by `harness-s evolve`: every `<id>.json`
 * except `index.json` and `summary.json`, each validated (schema, base plus patch, content id,
 * protocol). A bad file stops the load with an error naming the file and the field, and a folder
 * with no variant is refused. H0 is not a member; the pool holds its siblings, ordered by id.
 */
export async function loadPool(dir: string, options: VariantCheckOptions = {}): Promise<HarnessSpec[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new InputError(`cannot read pool folder ${dir}: ${(error as Error).message}`, {
      code: 'file-unreadable',
      cause: error,
    });
  }
  const files = names.filter((name) => name.endsWith('.json') && !poolReservedFiles.has(name)).sort();
  if (files.length === 0)
    throw new InputError(
      `pool folder ${dir} holds no variant (no <id>.json besides index.json and summary.json): give the folder evolve wrote its variants to`,
      { code: 'empty-pool' },
    );
  const pool: HarnessSpec[] = [];
  for (const name of files) {
    const path = join(dir, name);
    let spec: HarnessSpec;
    try {
      spec = validateVariant(await readJson(path), path, options);
    } catch (error) {
      if (!ConfigError.isInstance(error)) throw error;
      throw new InputError(error.message, { code: 'bad-variant', cause: error });
    }
    if (`${spec.id}.json` !== name) {
      throw new InputError(`${path}: id: '${spec.id}' does not match the file name`, { code: 'bad-variant' });
    }
    pool.push(spec);
  }
  return pool;
}
