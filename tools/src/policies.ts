import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import {
  ConfigError,
  namingFile,
  type Policy,
  parseWith,
  policySnapshotFile,
  readJson,
  readTrainConfig,
  snapshotStepsIn,
  trainFiles,
} from '@harness-s/core';
import {
  actionFormatSkill,
  createEmptyPolicy,
  createOpenAIPolicy,
  createOraclePolicy,
  defaultSimulatedPolicyConfig,
  type OpenAIPolicyHooks,
  type OpenAIPolicyOptions,
  SimulatedGrpoTrainer,
  SimulatedPolicy,
  SimulatedPolicyConfig,
} from '@harness-s/policy';
import { z } from 'zod';
import { jsonDifferences } from './json-differences.js';
import { checkModelServer } from './model-server.js';
import { recordedSplit } from './task-splits.js';

export interface PolicyFlags {
  policy: string;
  /** The environment the policy acts in: a `--checkpoint` must come from a run on it. */
  env?: string;
  model?: string;
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
  /** Ask the server for the completion's token ids (vLLM's `return_token_ids`). */
  tokenIds?: boolean;
  /** Ask the server for the completion tokens' log-probabilities. */
  logprobs?: boolean;
  /** Send each attempt's seed with its requests. */
  seeded?: boolean;
  /** Seconds to wait for each answer of the server (default 120). */
  requestTimeout?: number;
  /** Retries of a request the server failed (default 4). */
  maxRetries?: number;
}

/** The flags that only a model behind an endpoint reads, by their command-line names. */
const modelFlags: ReadonlyArray<[keyof PolicyFlags, string]> = [
  ['model', '--model'],
  ['baseUrl', '--base-url'],
  ['temperature', '--temperature'],
  ['maxTokens', '--max-tokens'],
  ['tokenIds', '--token-ids'],
  ['logprobs', '--logprobs'],
  ['seeded', '--seeded'],
  ['requestTimeout', '--request-timeout'],
  ['maxRetries', '--max-retries'],
];

/** The flags that change the simulated policy's settings. */
export interface SimulatedSettingsFlags {
  /** A JSON file of `SimulatedPolicyConfig` fields; the rest keep their defaults. */
  simConfig?: string;
  /** `localitySpread`, over the file's value. */
  simLocality?: number;
  /** Settings already read (a caller that read them once for several commands); wins over the two above. */
  sim?: Partial<SimulatedPolicyConfig>;
  /**
   * A trained simulated policy instead (`--checkpoint`): a training run's folder (its last
   * checkpoint) or a snapshot file; the commands that evaluate or profile a policy take it.
   */
  checkpoint?: string;
}

/**
 * The simulated policy's settings from `--sim-config FILE` and `--sim-locality SD`, or undefined
 * when neither is given (the documented defaults). The file holds any fields of
 * `SimulatedPolicyConfig`; `theta` entries replace the defaults' skill by skill. A field the
 * policy does not know, or a value of the wrong kind, is refused naming the file and the field.
 */
export async function simulatedSettings(
  flags: SimulatedSettingsFlags,
): Promise<Partial<SimulatedPolicyConfig> | undefined> {
  if (flags.simConfig === undefined && flags.simLocality === undefined) return undefined;
  if (flags.simLocality !== undefined && !(flags.simLocality >= 0)) {
    throw new ConfigError(`--sim-locality must be >= 0, got ${flags.simLocality}`, { code: 'bad-flag' });
  }
  const fromFile =
    flags.simConfig === undefined
      ? {}
      : parseWith(SimulatedPolicyConfig.partial(), await readJson(flags.simConfig), flags.simConfig);
  return { ...fromFile, ...(flags.simLocality === undefined ? {} : { localitySpread: flags.simLocality }) };
}

/**
 * The skills the simulated policy's settings name (in `theta`, and in `hardTheta` before the `@`)
 * that neither the environment's decision points nor the defaults know: most likely misspelt,
 * they change nothing. A skill of another environment is known (one file serves every environment).
 */
export function unknownSimSkills(
  settings: Partial<Pick<SimulatedPolicyConfig, 'theta' | 'hardTheta'>> | undefined,
  environmentSkills: ReadonlyArray<{ name: string }>,
): string[] {
  const known = new Set([
    ...environmentSkills.map((skill) => skill.name),
    ...Object.keys(defaultSimulatedPolicyConfig.theta),
    actionFormatSkill,
  ]);
  const named = [
    ...Object.keys(settings?.theta ?? {}),
    ...Object.keys(settings?.hardTheta ?? {}).map((hardnessClass) => hardnessClass.replace(/@[^@]*$/, '')),
  ];
  return [...new Set(named.filter((skill) => !known.has(skill)))].sort();
}

/** Says, once, which skills of `--sim-config` change nothing on this environment (see `unknownSimSkills`). */
export function noteUnknownSimSkills(
  policy: Policy | Partial<SimulatedPolicyConfig> | undefined,
  environment: { id: string; skills: ReadonlyArray<{ name: string }> },
  log: (line: string) => void,
): void {
  const settings = policy instanceof SimulatedPolicy ? policy.config : (policy as Partial<SimulatedPolicyConfig>);
  const unknown = unknownSimSkills(settings, environment.skills);
  if (unknown.length === 0) return;
  log(
    `warning: --sim-config names ${unknown.length === 1 ? 'a skill' : 'skills'} that ${environment.id} has no decision point for and the defaults do not list: ${unknown.join(', ')}; ${unknown.length === 1 ? 'it changes' : 'they change'} nothing here (${environment.id}'s skills: ${environment.skills.map((skill) => skill.name).join(', ')})`,
  );
}

/**
 * What settings change from the simulated policy's defaults, for a run's log: `` (none), or e.g.
 * `localitySpread 1, theta.inspect-table 3`.
 */
export function simulatedSettingsText(sim: Partial<SimulatedPolicyConfig> | undefined): string {
  if (!sim) return '';
  return jsonDifferences(new SimulatedPolicy().config, new SimulatedPolicy(sim).config)
    .map(({ path, now }) => `${path} ${JSON.stringify(now) ?? 'unset'}`)
    .join(', ');
}

export const policyNames = ['sim', 'oracle', 'empty', 'openai'] as const;

/**
 * The policy a command's flags name, with the simulated policy's settings read from `--sim-config`
 * and `--sim-locality` unless the caller passes them already read (`sim`).
 */
export async function policyFromFlags(flags: PolicyFlags & SimulatedSettingsFlags): Promise<Policy> {
  if (flags.checkpoint !== undefined) {
    checkCheckpointFlags(flags);
    refuseModelFlags(flags, '--checkpoint gives the simulated policy a training run left');
    return trainedPolicy(flags.checkpoint, flags.env);
  }
  const sim = flags.sim ?? (await simulatedSettings(flags));
  return createPolicy({ ...flags, ...(sim ? { sim } : {}) });
}

/** Refuses flags that `--checkpoint` cannot go with: another policy, or settings the checkpoint holds. */
export function checkCheckpointFlags(flags: Pick<PolicyFlags, 'policy'> & SimulatedSettingsFlags): void {
  if (flags.checkpoint === undefined) return;
  if (flags.policy !== 'sim')
    throw new ConfigError(`--checkpoint holds a trained simulated policy; --policy is '${flags.policy}'`, {
      code: 'bad-flag',
    });
  if (flags.sim || flags.simConfig !== undefined || flags.simLocality !== undefined)
    throw new ConfigError("--checkpoint holds the policy's settings; leave out --sim-config and --sim-locality", {
      code: 'bad-flag',
    });
}

/** Refuses the flags only a model behind an endpoint reads, where none acts (`why` says what acts). */
export function refuseModelFlags(flags: Partial<PolicyFlags>, why: string): void {
  const given = modelFlags.find(([key]) => flags[key] !== undefined && flags[key] !== false);
  if (given)
    throw new ConfigError(`${given[1]} applies to --policy openai, a model behind an endpoint; ${why}`, {
      code: 'bad-flag',
    });
}

/**
 * Before a run with `--policy openai` starts: its server answers (see `checkModelServer`), and, for
 * a training run (`run`, its folder), does not serve another run's updates.
 */
export async function checkServedModel(flags: Pick<PolicyFlags, 'baseUrl' | 'model'>, run?: string): Promise<void> {
  const baseUrl = flags.baseUrl ?? process.env['OPENAI_BASE_URL'];
  if (baseUrl && flags.model)
    await checkModelServer(
      baseUrl,
      flags.model,
      (line) => process.stderr.write(`warning: ${line}\n`),
      flags.baseUrl === undefined ? 'OPENAI_BASE_URL' : '--base-url',
      run,
    );
}

/** Creates the policy named by `--policy`. */
export function createPolicy(flags: PolicyFlags & Pick<SimulatedSettingsFlags, 'sim'>): Policy {
  if (flags.sim && flags.policy !== 'sim') {
    throw new ConfigError(`--sim-config and --sim-locality set the simulated policy; --policy is '${flags.policy}'`, {
      code: 'bad-flag',
    });
  }
  if (flags.policy !== 'openai') refuseModelFlags(flags, `--policy is '${flags.policy}'`);
  switch (flags.policy) {
    case 'sim':
      return new SimulatedPolicy(flags.sim ?? {});
    case 'oracle':
      return createOraclePolicy();
    case 'empty':
      return createEmptyPolicy();
    case 'openai': {
      const baseUrl = flags.baseUrl ?? process.env['OPENAI_BASE_URL'];
      if (!baseUrl) {
        throw new ConfigError(
          '--policy openai needs --base-url URL (or OPENAI_BASE_URL), e.g. http://127.0.0.1:8000/v1',
          {
            code: 'bad-flag',
          },
        );
      }
      if (!/^https?:$/.test(URL.canParse(baseUrl) ? new URL(baseUrl).protocol : ''))
        throw new ConfigError(
          `${flags.baseUrl === undefined ? 'OPENAI_BASE_URL' : '--base-url'}: '${baseUrl}' is not a URL; give the endpoint with its scheme, e.g. http://127.0.0.1:8000/v1`,
          { code: 'bad-flag' },
        );
      if (!flags.model) throw new ConfigError('--policy openai needs --model NAME', { code: 'bad-flag' });
      return createOpenAIPolicy(
        {
          baseUrl,
          model: flags.model,
          ...(flags.temperature === undefined ? {} : { temperature: flags.temperature }),
          ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
          ...(flags.tokenIds ? { returnTokenIds: true } : {}),
          ...(flags.logprobs ? { logprobs: true } : {}),
          ...(flags.seeded ? { seeded: true } : {}),
          ...(flags.requestTimeout === undefined ? {} : { timeoutMs: flags.requestTimeout * 1000 }),
          ...(flags.maxRetries === undefined ? {} : { maxRetries: flags.maxRetries }),
        },
        { warn: (message) => process.stderr.write(`warning: ${message}\n`) },
      );
    }
    default:
      throw new ConfigError(`unknown --policy '${flags.policy}'; available: ${policyNames.join(', ')}`, {
        code: 'unknown-policy',
      });
  }
}

/**
 * Rebuilds a policy from what its `describe()` returned, so a rollout worker acts with the same
 * parameters as the training loop that enqueued the attempt: the simulated policy from
 * `{ kind: 'simulated', step, ...config }`, the oracle and the empty policy from their kind, an
 * OpenAI-compatible policy from its settings (which never hold the API key: the worker's own
 * OPENAI_API_KEY is used).
 */
export function policyFromDescription(description: Record<string, unknown>, hooks: OpenAIPolicyHooks = {}): Policy {
  const { kind, ...rest } = description;
  if (kind === 'simulated') {
    const { step, ...config } = rest;
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
      throw new ConfigError(`simulated policy description: step must be a non-negative integer, got ${String(step)}`, {
        code: 'bad-policy-description',
      });
    }
    // The constructor validates the configuration strictly, so a field it does not know is refused.
    return new SimulatedPolicy(config as Partial<SimulatedPolicyConfig>, step);
  }
  if (kind === 'oracle') return createOraclePolicy();
  if (kind === 'empty') return createEmptyPolicy();
  if (kind === undefined && typeof rest['baseUrl'] === 'string' && typeof rest['model'] === 'string') {
    return createOpenAIPolicy(rest as OpenAIPolicyOptions, hooks);
  }
  throw new ConfigError(`cannot rebuild a policy from ${JSON.stringify(description).slice(0, 200)}`, {
    code: 'bad-policy-description',
  });
}

const SavedTrainer = z.object({
  step: z.number().int().nonnegative(),
  trainer: z.unknown(),
  env: z.string().optional(),
});

/** A `--checkpoint` as read: the snapshot file, its run folder, and the split the run cut its tasks from. */
export interface CheckpointSource {
  /** The file the policy comes from: a run folder's latest step's snapshot, or the file given. */
  file: string;
  runDir: string;
  /**
   * The single split the run cut into train/validation/test, when it cut one (a task file: the run's
   * copy); read when needed, as a run whose task file is gone can still be evaluated on other tasks.
   */
  cutFrom?: () => string | undefined;
}

/**
 * Finds what `--checkpoint PATH` names: a run folder (the snapshot of its last checkpoint's step,
 * so a later resume reads the same policy even if the run trains on) or one of its files. Refuses
 * a folder that is no training run, or a run of another trainer, naming what it found.
 */
export async function checkpointSource(path: string, env?: string): Promise<CheckpointSource> {
  const target = resolve(path);
  if (!existsSync(target)) throw new ConfigError(`--checkpoint ${path}: no such file or folder`, { code: 'bad-flag' });
  const folder = statSync(target).isDirectory();
  if (!folder && !/^(policy-step-\d+|latest)\.json$/.test(basename(target)))
    throw new ConfigError(
      `--checkpoint ${path}: give a training run's folder or one of its policy snapshots (checkpoints/policy-step-N.json, checkpoints/latest.json)`,
      { code: 'bad-flag' },
    );
  const runDir = folder ? target : resolve(target, '..', '..');
  let cutFrom: (() => string | undefined) | undefined;
  let served: string | undefined;
  if (existsSync(join(runDir, trainFiles.config))) {
    const config = (await readTrainConfig(runDir)) as {
      command?: unknown;
      env?: unknown;
      trainer?: unknown;
      split?: unknown;
      splits?: unknown;
    };
    if (config.command !== undefined && config.command !== 'train')
      throw new ConfigError(
        `--checkpoint ${path}: ${runDir} holds a run of 'harness-s ${String(config.command)}', not a training run`,
        { code: 'bad-flag' },
      );
    if (env !== undefined && config.env !== undefined && config.env !== env)
      throw new ConfigError(`--checkpoint ${path}: the run trained on ${String(config.env)}, not on ${env}`, {
        code: 'bad-flag',
      });
    if (config.trainer !== 'sim-grpo')
      throw new ConfigError(
        `--checkpoint ${path}: the run was trained by '${String(config.trainer)}'; only the simulated policy's runs ('sim-grpo') can be rebuilt here${config.trainer === 'batch-export' ? ". Its model lives where it was served: evaluate it there with --policy openai --base-url URL --model NAME (a 'harness-s serve sim' keeps each step's parameters as checkpoints/policy-step-N.json in its --out folder, which --checkpoint takes)" : ''}`,
        { code: 'bad-flag' },
      );
    cutFrom = () => recordedSplit(runDir, config);
  } else if (folder) {
    // A serve sim --out folder: its parameters after each update handed to it, the last one served.
    served = await servedSnapshot(target);
    if (!served)
      throw new ConfigError(
        `--checkpoint ${path}: no training run here (no ${trainFiles.config}), nor a served model's parameters (checkpoints/policy-step-N.json, as serve sim --out keeps them)`,
        { code: 'bad-flag' },
      );
  }
  let file = served ?? target;
  if (folder && !served) {
    const latest = join(target, trainFiles.checkpoint);
    if (!existsSync(latest))
      throw new ConfigError(`--checkpoint ${path}: the run has no checkpoint yet (${trainFiles.checkpoint})`, {
        code: 'bad-flag',
      });
    const snapshot = join(target, policySnapshotFile(parseWith(SavedTrainer, await readJson(latest), latest).step));
    file = existsSync(snapshot) ? snapshot : latest;
  }
  // A snapshot names the environment it was trained on: one copied out of its run folder, with no
  // config.json beside it, is checked too.
  const trainedOn = env === undefined ? undefined : parseWith(SavedTrainer, await readJson(file), file).env;
  if (trainedOn !== undefined && trainedOn !== env)
    throw new ConfigError(`--checkpoint ${path}: the policy was trained on ${trainedOn}, not on ${env}`, {
      code: 'bad-flag',
    });
  return { file, runDir, ...(cutFrom ? { cutFrom } : {}) };
}

/** The policy snapshot of the highest step in a folder's checkpoints/, or undefined. */
async function servedSnapshot(dir: string): Promise<string | undefined> {
  const last = (await snapshotStepsIn(dir)).at(-1);
  return last === undefined ? undefined : join(dir, policySnapshotFile(last));
}

/**
 * The simulated policy a training run left: `path` is a run folder (the policy of its last
 * checkpoint) or one of its files `checkpoints/policy-step-N.json` / `checkpoints/latest.json`.
 * Refuses a folder that is no training run, or a run of another trainer, naming what it found.
 */
export async function trainedPolicy(path: string, env?: string): Promise<SimulatedPolicy> {
  const { file } = await checkpointSource(path, env);
  const saved = parseWith(SavedTrainer, await readJson(file), file);
  const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy());
  namingFile(file, () => trainer.restore(saved.trainer));
  return trainer.policy;
}
