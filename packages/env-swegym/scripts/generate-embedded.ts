/**
 * Regenerates data/embedded/instances.jsonl from the instance directories: base commits from the
 * stored files, gold and test patches from the edits and `test-patch/`. Run after changing any
 * embedded instance: `npm run generate` (in packages/env-swegym).
 */
import { writeFile } from 'node:fs/promises';
import { embeddedInstancesPath, generateEmbeddedRecords, recordsToJsonl } from '../src/index.js';

const records = await generateEmbeddedRecords();
await writeFile(embeddedInstancesPath, recordsToJsonl(records));
for (const record of records) {
  process.stdout.write(`${record.instance_id}\t${record.harness_s?.split}\t${record.base_commit}\n`);
}
process.stdout.write(`${records.length} instances -> ${embeddedInstancesPath}\n`);
