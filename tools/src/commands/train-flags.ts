import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AdvantageOptions,
  Checkpoint,
  ConfigError,
  type Policy,
  parseWith,
  readJson,
  trainFiles,
} from '@harness-s/core';
import type { EnvironmentOptions } from '../environments.js';
import { createPolicy, type PolicyFlags, refuseModelFlags, type SimulatedSettingsFlags } from '../policies.js';
import { flagName } from '../resume.js';

export interface TrainFlags extends EnvironmentOptions, SimulatedSettingsFlags, Partial<PolicyFlags> {
  /**
   * A shell command run after each step's batch is written (a model served elsewhere): it gets
   * HARNESS_S_BATCH (the batch file), HARNESS_S_STEP and HARNESS_S_RUN, and the next step waits for it.
   */
  onBatch?: string;
  /** Seconds an `--on-batch` command may run before it is stopped, and the run with it. */
  onBatchTimeout?: number;
  env: string;
  method: string;
  steps: number;
  k: number;
  seed: number;
  batchSize: number;
  pool?: string;
  /** The built-in base harness (default: the pool's base, else `h0`). */
  base?: string;
  split?: string;
  rescue?: string;
  rescueContext?: string;
  /** mixture: variants of the pool (best first) that join H0. */
  mixtureSize?: number;
  evalEvery?: number;
  /** `--skip-initial-eval`: no evaluation under H0 before the first step. */
  skipInitialEval?: boolean;
  evalK: number;
  concurrency: number;
  /** Reruns of an attempt that ended in an infrastructure error (default: the loop's, 2). */
  infraRetries?: number;
  learningRate?: number;
  /** Advantages: divide by the population or the sample standard deviation (default population). */
  advantageStd?: string;
  /** Advantages: added to the standard deviation (default 1e-6). */
  advantageEpsilon?: number;
  /** Groups whose rewards are all equal: keep them at zero advantage (default) or drop them. */
  zeroVariance?: string;
  /** Rescue routing for harness-s: adaptive profiles (default), fixed profiles, or random variants. */
  router?: string;
  reanchorEvery?: number;
  /** Adaptive router: attempts per validation task and harness when (re-)anchoring profiles (default 2). */
  profileK?: number;
  /** Adaptive router: anchor profiles on this many validation tasks (default all). */
  profileTasks?: number;
  /** Share of earlier anchors' evidence a re-anchoring keeps. */
  carryOver?: number;
  /** Adaptive router: remember what each rescue gave. */
  rescueMemory?: boolean;
  /** Adaptive router: the similar-failure ranker's weight (bare: the default). */
  failureRanker?: number | boolean;
  /** Profiles to start from (otherwise anchored on the initial policy). */
  profiles?: string;
  /** `MODEL@URL` of LLM rankers joining the router's vote. */
  llmRanker?: string[];
  /** `MODEL@URL` of the model that writes the profiles' summaries. */
  summarizer?: string;
  out?: string;
  resume?: string;
  /** Run attempts on `harness-s worker` processes through a job queue in this Redis. */
  redis?: string;
  quiet?: boolean;
}

/**
 * A continued run's `--steps`: never fewer than it has trained, refused before any work. (The run
 * records its flags, an extension among them, only once the loop has checked that it is the same run.)
 */
export async function checkExtension(dir: string, flags: TrainFlags): Promise<void> {
  const checkpointPath = join(dir, trainFiles.checkpoint);
  if (existsSync(checkpointPath)) {
    const { step } = parseWith(Checkpoint, await readJson(checkpointPath), checkpointPath);
    if (flags.steps < step)
      throw new ConfigError(`--steps ${flags.steps}: the run in ${dir} has trained ${step} steps already`, {
        code: 'bad-flag',
      });
  }
}

/** The loop's advantage settings the flags give (the rest keep their defaults). */
export function advantageConfig(flags: TrainFlags): { advantage?: Partial<AdvantageOptions> } {
  const advantage: Partial<AdvantageOptions> = {
    ...(flags.advantageStd ? { std: flags.advantageStd as AdvantageOptions['std'] } : {}),
    ...(flags.advantageEpsilon !== undefined ? { epsilon: flags.advantageEpsilon } : {}),
    ...(flags.zeroVariance ? { zeroVariance: flags.zeroVariance as AdvantageOptions['zeroVariance'] } : {}),
  };
  return Object.keys(advantage).length > 0 ? { advantage } : {};
}

/** `8x1` (or `8X1`, `8×1`) -> 8 variants x 1 attempt. */
export function parseShape(text: string): { variants: number; attemptsPerVariant: number } {
  const match = /^([1-9]\d*)[xX×]([1-9]\d*)$/.exec(text.trim());
  if (!match)
    throw new ConfigError(`--rescue must look like 8x1 (variants x attempts, each at least 1), got '${text}'`, {
      code: 'bad-flag',
    });
  return { variants: Number(match[1]), attemptsPerVariant: Number(match[2]) };
}

/** The router's flags (harness-s only), and the flags of one method only. */
const flagsOfMethods: ReadonlyArray<[keyof TrainFlags, readonly string[]]> = [
  ['router', ['harness-s']],
  ['reanchorEvery', ['harness-s']],
  ['profileK', ['harness-s']],
  ['profileTasks', ['harness-s']],
  ['carryOver', ['harness-s']],
  ['rescueMemory', ['harness-s']],
  ['failureRanker', ['harness-s']],
  ['profiles', ['harness-s']],
  ['llmRanker', ['harness-s']],
  ['summarizer', ['harness-s']],
  ['rescue', ['harness-s', 'h0-resample']],
  ['mixtureSize', ['mixture']],
];

/** Refuses a flag given for a method that does not use it, rather than ignoring it. */
export function refuseUnusedFlags(flags: TrainFlags, explicit: ReadonlySet<string>): void {
  for (const [key, methods] of flagsOfMethods) {
    if (!explicit.has(key) || flags[key] === undefined || methods.includes(flags.method)) continue;
    throw new ConfigError(
      `${flagName(key)}: only for --method ${methods.join(' or ')}; --method is ${flags.method}, which would ignore it`,
      { code: 'bad-flag' },
    );
  }
}

/**
 * Flags that set the loop's recorded config, which a continued run compares itself: given on
 * resume where the run recorded none (took the default), they are refused only if they change it.
 */
export const trainSettingFlags = [
  'rescue',
  'rescueContext',
  'mixtureSize',
  'evalEvery',
  'skipInitialEval',
  'advantageStd',
  'advantageEpsilon',
  'zeroVariance',
];

/**
 * What a continued training run may change: how it runs, and `steps` (to train on past the end).
 */
export const trainChangeable = [
  'concurrency',
  'infraRetries',
  'db',
  'sandbox',
  'unconfined',
  'appworldUrl',
  'redis',
  'steps',
  'baseUrl',
  'requestTimeout',
  'maxRetries',
  'onBatch',
  'onBatchTimeout',
];

/**
 * The model a run with `--policy openai` (or oracle, empty) acts with, or undefined when the
 * simulated policy trains here. Flags of the one that does not act are refused: the simulated
 * policy's settings for a model, and a model's (`--on-batch` among them) for the simulated policy.
 */
export function servedPolicy(flags: TrainFlags): Policy | undefined {
  if (flags.policy === undefined || flags.policy === 'sim') {
    refuseModelFlags(flags, 'the simulated policy trains here (--policy sim)');
    if (flags.onBatch !== undefined)
      throw new ConfigError('--on-batch hands batches to an external trainer; the simulated policy trains here', {
        code: 'bad-flag',
      });
  }
  if (flags.onBatch !== undefined && flags.onBatch.trim() === '')
    throw new ConfigError('--on-batch is empty: give the command that hands a batch to the trainer', {
      code: 'bad-flag',
    });
  if (flags.onBatchTimeout !== undefined && flags.onBatch === undefined)
    throw new ConfigError('--on-batch-timeout limits an --on-batch command; give --on-batch too', {
      code: 'bad-flag',
    });
  if (flags.policy === undefined || flags.policy === 'sim') return undefined;
  const simOnly = (
    [
      ['--sim-config', flags.simConfig],
      ['--sim-locality', flags.simLocality],
      ['--learning-rate', flags.learningRate],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (simOnly.length > 0 || flags.sim)
    throw new ConfigError(
      `${simOnly.map(([name]) => name).join(', ') || 'simulated settings'}: only for the simulated policy; --policy is '${flags.policy}'`,
      { code: 'bad-flag' },
    );
  return createPolicy({ ...flags, policy: flags.policy });
}
