import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type HarnessSpec, InputError, readJson, writeJsonAtomic } from '@harness-s/core';
import { type VariantCheckOptions, validateVariant } from './compliance.js';

/**
 * Written in a pool folder's `state/` when its evolution has finished, and removed when one
 * continues it: a folder with `state/` and without it holds a pool still growing, or one whose
 * evolution was stopped.
 */
export const evolutionFinishedFile = join('state', 'finished.json');

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
 * with no variant is refused. H0 is not a member; the pool holds its siblings, best first: by the
 * validation successes `index.json` records for each (as evolve writes it), then by id; a folder
 * without one (made by hand) is ordered by id. A fixed mixture takes the pool's first variants.
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
  if (existsSync(join(dir, 'state', 'config.json')) && !existsSync(join(dir, evolutionFinishedFile)))
    throw new InputError(
      `pool folder ${dir}: its evolution has not finished (stopped, or still running), so it may lack variants: continue it with \`harness-s evolve --out ${dir}\` and the same settings (finished work is not done again)`,
      { code: 'unfinished-pool' },
    );
  const files = names.filter((name) => name.endsWith('.json') && !poolReservedFiles.has(name)).sort();
  const successes = await validationSuccesses(dir);
  const missing = [...successes.keys()].filter((id) => !files.includes(`${id}.json`));
  if (missing.length > 0)
    throw new InputError(
      `pool folder ${dir}: index.json lists ${missing.length === 1 ? 'a member' : 'members'} without ${missing.length === 1 ? 'its file' : 'their files'}: ${missing.map((id) => `${id}.json`).join(', ')}; restore ${missing.length === 1 ? 'it' : 'them'}, or evolve the pool again`,
      { code: 'incomplete-pool' },
    );
  if (files.length === 0)
    throw new InputError(
      existsSync(join(dir, evolutionFinishedFile))
        ? `pool folder ${dir} holds no variant: the evolution that wrote it grew none (an environment without the extras evolution reads, its failure signals and directive texts, grows none: see docs/adding-an-environment.md)`
        : `pool folder ${dir} holds no variant (no <id>.json besides index.json and summary.json): give the folder evolve wrote its variants to`,
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
  const score = (id: string) => successes.get(id) ?? -1;
  return pool.sort((a, b) => score(b.id) - score(a.id) || a.id.localeCompare(b.id));
}

/** Successes of each variant on the validation tasks, from the pool's `index.json` (empty without one). */
async function validationSuccesses(dir: string): Promise<Map<string, number>> {
  const path = join(dir, 'index.json');
  if (!existsSync(path)) return new Map();
  const index = (await readJson(path)) as {
    members?: Array<{ id?: unknown; validation?: { perTask?: Record<string, unknown> } }>;
  } | null;
  const successes = new Map<string, number>();
  for (const member of Array.isArray(index?.members) ? index.members : []) {
    if (typeof member?.id !== 'string') continue;
    const counts = Object.values(member.validation?.perTask ?? {});
    successes.set(
      member.id,
      counts.reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0),
    );
  }
  return successes;
}
