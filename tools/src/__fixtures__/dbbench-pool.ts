import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dbbenchH0, deriveVariant, environmentExtras, proposeChanges } from '@harness-s/harness-dsh';
import { createEnvironment } from '../environments.js';

/**
 * A pool folder (made if missing): the operator library's first change for two repair directions
 * of DBBench's H0.
 */
export async function writePool(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const h0 = dbbenchH0();
  const environment = createEnvironment('dbbench');
  const context = { skills: environment.skills, extras: environmentExtras('dbbench') };
  await environment.close();
  for (const [direction, skill] of [
    ['schema-grounding', 'inspect-table'],
    ['answer-formatting', 'answer-format'],
  ] as const) {
    const [change] = proposeChanges(h0, { name: direction, skills: [skill], causes: [], tasks: [] }, context);
    if (!change) throw new Error(`no change for ${direction}`);
    const spec = deriveVariant(h0, h0, change);
    await writeFile(join(dir, `${spec.id}.json`), JSON.stringify(spec, null, 2));
  }
}

/** A one-attempt evaluation of one DBBench task with the simulated policy under H0, quiet: `runEval`'s flags. */
export const smallEvalFlags = {
  env: 'dbbench',
  policy: 'sim',
  harness: 'h0',
  k: 1,
  seed: 0,
  concurrency: 2,
  limit: 1,
  quiet: true,
};
