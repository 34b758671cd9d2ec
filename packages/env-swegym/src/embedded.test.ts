import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { describe, expect, it } from 'vitest';
import { generateEmbeddedRecords, recordsToJsonl } from './embedded-generator.js';
import { embeddedDataDir, embeddedInstancesPath, ensureEmbeddedRepository } from './embedded-repos.js';
import { SweInstanceRecord } from './instance.js';

describe('embedded instances', () => {
  it('instances.jsonl is what the instance directories generate (run `npm run generate` after editing them)', async () => {
    const generated = recordsToJsonl(await generateEmbeddedRecords());
    expect(generated).toBe(await readFile(embeddedInstancesPath, 'utf8'));
  }, 120_000);

  it('builds each repository at its recorded base commit, the same on every build', async () => {
    const first = (await readFile(embeddedInstancesPath, 'utf8')).split('\n')[0] ?? '';
    const record = SweInstanceRecord.parse(JSON.parse(first));
    const cache = await mkdtemp(join(tmpdir(), 'embedded-cache-'));
    try {
      const source = join(embeddedDataDir, record.harness_s?.repo_dir ?? '');
      const built = await ensureEmbeddedRepository(source, record.base_commit, cache);
      expect((await simpleGit(built).revparse(['HEAD'])).trim()).toBe(record.base_commit);
      // A second call reuses the repository; a wrong expected commit is refused.
      expect(await ensureEmbeddedRepository(source, record.base_commit, cache)).toBe(built);
      await expect(ensureEmbeddedRepository(source, '0'.repeat(40), cache)).rejects.toThrow(/builds to commit/);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});
