import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseWith, policySnapshotFile, readJson, snapshotStepsIn, writeJsonAtomic } from '@harness-s/core';
import { SimulatedGrpoTrainer, type SimulatedPolicy } from '@harness-s/policy';
import { z } from 'zod';
import { trainedPolicy } from '../policies.js';

/** One update the server applied: the step it stands for and what it learned from. */
export interface AppliedUpdate {
  step: number;
  examples: number;
  groups: number;
  updateNorm: number;
  /** Attempts left out: their turns are not ones the plan can produce (see `SimulatedPolicy.follow`). */
  unfollowed: string[];
  /** The run that handed it over (`?run=`), when it said. */
  run?: string;
}

const SavedUpdates = z.array(
  z.object({
    step: z.number().int(),
    examples: z.number().int(),
    groups: z.number().int(),
    updateNorm: z.number(),
    unfollowed: z.array(z.string()),
    run: z.string().optional(),
  }),
);

/** The served parameters on disk: a training run's policy snapshots, and the updates applied. */
export class ServedPolicyStore {
  /** `env`: the environment served, recorded in every snapshot (and checked when one is read back). */
  constructor(
    private readonly dir: string,
    private readonly env?: string,
  ) {}

  /** What an earlier server left here, or undefined for a new folder. */
  async load(): Promise<{ snapshots: Map<number, SimulatedPolicy>; updates: AppliedUpdate[] } | undefined> {
    const steps = await snapshotStepsIn(this.dir);
    if (steps.length === 0) return undefined;
    const snapshots = new Map<number, SimulatedPolicy>();
    for (const step of steps)
      snapshots.set(step, await trainedPolicy(join(this.dir, policySnapshotFile(step)), this.env));
    const file = join(this.dir, 'updates.json');
    const updates = existsSync(file) ? parseWith(SavedUpdates, await readJson(file), file) : [];
    return { snapshots, updates };
  }

  /** Writes the policy of its step (dropping later steps' snapshots: they are replaced) and the updates. */
  async save(policy: SimulatedPolicy, updates: readonly AppliedUpdate[]): Promise<void> {
    const trainer = new SimulatedGrpoTrainer(policy);
    const snapshot = {
      schemaVersion: 1,
      step: policy.step,
      trainer: trainer.state(),
      savedAt: new Date().toISOString(),
      ...(this.env ? { env: this.env } : {}),
    };
    await writeJsonAtomic(join(this.dir, policySnapshotFile(policy.step)), snapshot);
    for (const step of await snapshotStepsIn(this.dir))
      if (step > policy.step) await rm(join(this.dir, policySnapshotFile(step)), { force: true });
    await writeJsonAtomic(join(this.dir, 'updates.json'), updates);
  }
}
