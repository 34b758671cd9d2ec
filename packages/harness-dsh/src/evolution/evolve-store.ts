import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigError,
  folderHolds,
  HarnessSpec,
  parseWith,
  readJson,
  readTrajectories,
  runFiles,
  type Trajectory,
  writeJsonAtomic,
} from '@harness-s/core';
import { z } from 'zod';
import { evolutionFinishedFile, writeVariant } from '../variants/pool.js';
import { canonicalJson } from '../variants/variant-id.js';
import { FailureAnalysis } from './causes.js';
import { SolvedRule } from './coverage.js';
import { type PoolIndex, type PoolSummary, RoundRecord, VariantRecord } from './pool-report.js';

/** What a pool folder was made with; a resumed run must match it. */
export const EvolveRecordedConfig = z.strictObject({
  env: z.string(),
  split: z.string(),
  validationTasks: z.array(z.string()),
  k: z.number().int(),
  seed: z.number().int(),
  solvedRule: SolvedRule,
  policy: z.strictObject({ id: z.string(), version: z.string() }),
  base: z.string(),
});
export type EvolveRecordedConfig = z.infer<typeof EvolveRecordedConfig>;

/** A candidate as stored before it is evaluated: its spec, round and operator. */
export const StoredCandidate = z.strictObject({
  spec: HarnessSpec,
  round: z.number().int().nonnegative(),
  operator: z.string(),
});
export type StoredCandidate = z.infer<typeof StoredCandidate>;

/**
 * Evolution writes into a new or empty folder, or continues one it made (its `state/config.json`):
 * any other folder (a training run, an evaluation, files of the user's) is refused before anything in
 * it is overwritten.
 */
async function refuseForeignFolder(dir: string, stateConfig: string): Promise<void> {
  if (!existsSync(dir) || existsSync(stateConfig)) return;
  if (!statSync(dir).isDirectory())
    throw new ConfigError(`--out: ${dir} is a file, not a folder`, { code: 'bad-flag' });
  const held = await readdir(dir);
  // Only `state/` without its config.json: an evolution killed as it began.
  if (held.length === 0 || (held.length === 1 && held[0] === 'state')) return;
  throw new ConfigError(
    `--out: ${dir} already holds ${folderHolds(held)}; evolution needs a new or empty folder, or the folder of an evolution to continue`,
    { code: 'run-exists' },
  );
}

/**
 * The files of a pool folder. Everything needed to resume lives under `state/`; the pool itself is
 * `<id>.json` per accepted variant, `index.json` and `summary.json`. Every write is atomic, and a
 * variant's attempts are appended to `state/runs/<id>/trajectories.jsonl` as they finish, so a
 * killed run resumes without redoing finished work.
 */
export class EvolveStore {
  private constructor(readonly dir: string) {}

  private get state() {
    return join(this.dir, 'state');
  }

  /** Opens (or creates) a pool folder; a folder made with other settings is refused. */
  static async open(dir: string, config: EvolveRecordedConfig): Promise<EvolveStore> {
    const store = new EvolveStore(dir);
    await refuseForeignFolder(dir, join(store.state, 'config.json'));
    const path = join(store.state, 'config.json');
    const continued = existsSync(path);
    // The settings first: a folder killed at any moment after this is one evolution continues.
    if (!continued) await writeJsonAtomic(path, config);
    // Evolving again: the pool is not finished until this evolution is.
    await rm(join(dir, evolutionFinishedFile), { force: true });
    for (const sub of ['candidates', 'runs', 'results', 'analyses'])
      await mkdir(join(store.state, sub), { recursive: true });
    if (continued) {
      const recorded = parseWith(EvolveRecordedConfig, await readJson(path), path);
      for (const key of Object.keys(config) as Array<keyof EvolveRecordedConfig>) {
        if (canonicalJson(recorded[key]) !== canonicalJson(config[key])) {
          throw new ConfigError(
            `${dir} was evolved with a different ${key} (${JSON.stringify(recorded[key]).slice(0, 80)}); use another --out or the same settings`,
            { code: 'resume-mismatch' },
          );
        }
      }
    }
    return store;
  }

  runDir(id: string): string {
    return join(this.state, 'runs', id);
  }

  /** Trajectories recorded for a harness so far (none when it was never started). */
  async trajectories(id: string): Promise<Trajectory[]> {
    return existsSync(join(this.runDir(id), runFiles.trajectories)) ? readTrajectories(this.runDir(id)) : [];
  }

  async rounds(): Promise<RoundRecord[]> {
    const path = join(this.state, 'rounds.json');
    return existsSync(path) ? parseWith(z.array(RoundRecord), await readJson(path), path) : [];
  }

  async writeRounds(rounds: readonly RoundRecord[]): Promise<void> {
    await writeJsonAtomic(join(this.state, 'rounds.json'), rounds);
  }

  async candidate(id: string): Promise<StoredCandidate> {
    const path = join(this.state, 'candidates', `${id}.json`);
    return parseWith(StoredCandidate, await readJson(path), path);
  }

  async writeCandidate(candidate: StoredCandidate): Promise<void> {
    await writeJsonAtomic(join(this.state, 'candidates', `${candidate.spec.id}.json`), candidate);
  }

  /** Every finished evaluation (accepted or rejected), by id. */
  async results(): Promise<Map<string, VariantRecord>> {
    const dir = join(this.state, 'results');
    const records = new Map<string, VariantRecord>();
    for (const name of (await readdir(dir)).filter((file) => file.endsWith('.json')).sort()) {
      const record = parseWith(VariantRecord, await readJson(join(dir, name)), join(dir, name));
      records.set(record.id, record);
    }
    return records;
  }

  /** Records a finished evaluation; an accepted variant joins the pool as `<id>.json`. */
  async writeResult(record: VariantRecord, spec: HarnessSpec | null): Promise<void> {
    if (record.status === 'accepted' && spec && record.round > 0) await writeVariant(this.dir, spec);
    await writeJsonAtomic(join(this.state, 'results', `${record.id}.json`), record);
  }

  async analyses(id: string): Promise<FailureAnalysis[] | null> {
    const path = join(this.state, 'analyses', `${id}.json`);
    return existsSync(path) ? parseWith(z.array(FailureAnalysis), await readJson(path), path) : null;
  }

  async writeAnalyses(id: string, analyses: readonly FailureAnalysis[]): Promise<void> {
    await writeJsonAtomic(join(this.state, 'analyses', `${id}.json`), analyses);
  }

  /** Marks the evolution finished: the pool is whole (see `evolutionFinishedFile`). */
  async finish(): Promise<void> {
    await writeJsonAtomic(join(this.dir, evolutionFinishedFile), { finishedAt: new Date().toISOString() });
  }

  async writeReport(index: PoolIndex, summary: PoolSummary): Promise<void> {
    await writeJsonAtomic(join(this.dir, 'index.json'), index);
    await writeJsonAtomic(join(this.dir, 'summary.json'), summary);
  }
}
