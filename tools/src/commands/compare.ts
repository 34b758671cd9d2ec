import { existsSync, realpathSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { ConfigError, InputError, TrainSummary } from '@harness-s/core';
import { type ComparedGroup, type ComparedRun, rescueSuccessOf, rescuingMethods } from '../compared-runs.js';
import { renderTable } from '../format.js';
import { againstBaseline, differencesTable, parseAgainst } from '../paired-differences.js';
import { meanSpreadText } from '../report/stats.js';

export type { ComparedGroup, ComparedRun };

/** Runs that differ only in these settings compare as seeds of one configuration. */
const notSettings = new Set([
  'seed',
  'concurrency',
  'out',
  'resume',
  'quiet',
  'db',
  'sandbox',
  'redis',
  'baseUrl',
  'appworldUrl',
  'unconfined',
  'onBatch',
  'requestTimeout',
  'maxRetries',
  'policy.step',
  // How long a model's answers were awaited and retried. Where it was served stays a setting: two
  // checkpoints served under one model name differ by their address only.
  'policy.timeoutMs',
  'policy.maxRetries',
]);

/** Mean ± spread in percent, `-` where there is nothing (as in the settings columns). */
const rates = (values: readonly number[]): string => (values.length > 0 ? meanSpreadText(values) : '-');

/** Folders a run folder holds that hold no other run. */
const runParts = new Set(['checkpoints', 'batches', 'node_modules', '.git']);
/** Marks a folder `summaryFolders` found as a training run that has not ended. */
const unfinished = 'unfinished:';

/** `{a: {b: 1}, c: [1, 2]}` -> `{'a.b': '1', c: '1,2'}`. */
function flatten(value: unknown, prefix: string, into: Record<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) flatten(item, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix && !notSettings.has(prefix)) {
    into[prefix] = Array.isArray(value) ? value.join(',') : String(value);
  }
}

/** Flags named otherwise in the settings: the pool and policy above, the advantage settings in `config`. */
const restated = new Set(['pool', 'policy', 'env', 'advantageStd', 'advantageEpsilon', 'zeroVariance']);

/**
 * What a run ran with, from its config.json: the training configuration, the router, the
 * trainer, the simulated policy's settings, a reproduction's ablation (`variant`), the pool's
 * size, and the command line it recorded; the seed and how it ran (concurrency, services) left out.
 */
export function runSettings(config: Record<string, unknown>): Record<string, string> {
  const settings: Record<string, string> = {};
  flatten(config['config'], '', settings);
  for (const key of ['env', 'router', 'trainer', 'variant'] as const)
    if (config[key] !== undefined) settings[key] = String(config[key]);
  if (Array.isArray(config['pool'])) settings['pool'] = `${config['pool'].length} variants`;
  flatten(config['policy'], 'policy', settings);
  const flags: Record<string, string> = {};
  flatten(config['flags'], '', flags);
  // Flags restate the configuration (`k`, `method`, `--zero-variance` as `advantage.zeroVariance`);
  // a pool and a policy are named above.
  for (const [key, value] of Object.entries(flags)) if (!(key in settings) && !restated.has(key)) settings[key] = value;
  return settings;
}

/**
 * What the summary says of a run over what its config.json says: a run continued with more
 * `--steps` keeps its first configuration, and a run without config.json has only its summary.
 */
function summarySettings(summary: TrainSummary, settings: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = {
    method: summary.method,
    env: summary.env,
    ...settings,
    k: String(summary.k),
    steps: String(summary.steps),
    evalK: String(summary.evalUnderH0.k),
  };
  // One name for one setup: the router as `train --router` names it, and only where it routes;
  // the rescue shape as `--rescue` writes it, its default (K x 1) included, only where it rescues.
  const router = merged['router']?.replace(/^adaptive-/, '');
  delete merged['router'];
  const shape = merged['rescue.variants']
    ? `${merged['rescue.variants']}x${merged['rescue.attemptsPerVariant'] ?? 1}`
    : `${summary.k}x1`;
  delete merged['rescue.variants'];
  delete merged['rescue.attemptsPerVariant'];
  if (summary.method === 'harness-s') merged['router'] = router ?? 'adaptive';
  if (rescuingMethods.has(summary.method)) merged['rescue'] = shape;
  return merged;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new InputError(`${path}: ${(error as Error).message}`, { code: 'bad-run' });
  }
}

/**
 * The folders holding a summary.json under `dir` (itself included), depth-first in name order, and
 * a training run's folder that holds none yet (stopped before its end) as `unfinished:DIR`.
 */
async function summaryFolders(dir: string, depth = 0): Promise<string[]> {
  if (existsSync(join(dir, 'summary.json'))) return [dir];
  if (existsSync(join(dir, 'checkpoints')) && existsSync(join(dir, 'config.json'))) return [`${unfinished}${dir}`];
  if (depth >= 8) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && !runParts.has(entry.name))
      .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
      .map((entry) => summaryFolders(join(dir, entry.name), depth + 1)),
  );
  return nested.flat();
}

/**
 * The training runs in these folders: each folder is a run, or holds runs at any depth (a
 * reproduction's `train` folder, a folder of `train --out` runs). Folders with a summary.json that
 * is not a training run's (an `eval` run's) are counted in `skipped`, and training runs that have
 * not ended (no summary.json yet: stopped, or still running) in `unfinished`.
 */
export async function findTrainingRuns(
  dirs: readonly string[],
): Promise<{ runs: ComparedRun[]; skipped: string[]; unfinished: string[] }> {
  const runs: ComparedRun[] = [];
  const skipped: string[] = [];
  const stopped: string[] = [];
  const seen = new Set<string>();
  for (const given of dirs) {
    const dir = resolve(given);
    if (!existsSync(dir)) throw new ConfigError(`compare: no such folder ${dir}`, { code: 'missing-run' });
    if (!statSync(dir).isDirectory())
      throw new ConfigError(`${given}: a file, not a folder (give run folders, or folders holding them)`, {
        code: 'missing-run',
      });
    for (const found of await summaryFolders(dir)) {
      if (found.startsWith(unfinished)) {
        stopped.push(found.slice(unfinished.length));
        continue;
      }
      const folder = found;
      // Folders given twice, or one inside another given, are one run.
      const real = realpathSync(folder);
      if (seen.has(real)) continue;
      seen.add(real);
      const parsed = TrainSummary.safeParse(await readJson(join(folder, 'summary.json')));
      if (!parsed.success) {
        skipped.push(folder);
        continue;
      }
      const configPath = join(folder, 'config.json');
      const config = existsSync(configPath) ? await readJson(configPath) : {};
      if (config === null || typeof config !== 'object' || Array.isArray(config))
        throw new InputError(`${configPath}: not a run's configuration (a JSON object)`, { code: 'bad-run' });
      runs.push({
        dir: folder,
        summary: parsed.data,
        settings: summarySettings(parsed.data, runSettings(config as Record<string, unknown>)),
      });
    }
  }
  return { runs, skipped, unfinished: [...new Set(stopped.map((dir) => realpathSync(dir)))] };
}

/**
 * Groups runs by the settings that differ between them (`by` names them instead, when given).
 * Groups keep the order their first run was found in.
 */
export function groupRuns(
  runs: readonly ComparedRun[],
  by?: readonly string[],
): { keys: string[]; groups: ComparedGroup[] } {
  const all = [...new Set(runs.flatMap((run) => Object.keys(run.settings)))];
  const differs = (key: string) => new Set(runs.map((run) => run.settings[key] ?? '-')).size > 1;
  // Pass@k of different k are not averaged together: runs evaluated otherwise are always told apart.
  const keys = by ? [...by, ...(differs('evalK') && !by.includes('evalK') ? ['evalK'] : [])] : all.filter(differs);
  const unknown = (by ?? []).filter((key) => !all.includes(key));
  if (unknown.length > 0) {
    const known = all.filter((key) => !key.startsWith('policy.'));
    throw new ConfigError(
      `--by: no run has the setting ${unknown.map((key) => `'${key}'`).join(', ')}; they have ${known.join(', ')}${known.length < all.length ? ' and the policy.* settings' : ''}`,
      { code: 'bad-flag' },
    );
  }
  const groups = new Map<string, ComparedGroup>();
  for (const run of runs) {
    const settings = Object.fromEntries(keys.map((key) => [key, run.settings[key] ?? '-']));
    const id = JSON.stringify(settings);
    const group = groups.get(id) ?? { settings, runs: [] };
    group.runs.push(run);
    groups.set(id, group);
  }
  return { keys, groups: [...groups.values()] };
}

export interface CompareFlags {
  /** Settings to group by, instead of every setting that differs. */
  by?: string[];
  /** `SETTING=VALUE` (e.g. `method=grpo`): each row's differences from those runs, paired by seed. */
  against?: string;
  json?: boolean;
}

/** `harness-s compare DIR...`: training runs side by side, every seed of a configuration as one row. */
export async function runCompare(dirs: readonly string[], flags: CompareFlags = {}): Promise<ComparedGroup[]> {
  const { runs, skipped, unfinished: stopped } = await findTrainingRuns(dirs);
  const base = process.cwd();
  const listed = (folders: string[]) =>
    `${folders
      .slice(0, 3)
      .map((dir) => relative(base, dir) || '.')
      .join(', ')}${folders.length > 3 ? ` and ${folders.length - 3} more` : ''}`;
  const notEnded =
    stopped.length > 0
      ? `left out, not ended (no summary.json; \`train --resume\` finishes a stopped run): ${listed(stopped)}`
      : '';
  if (runs.length === 0)
    throw new ConfigError(
      `no training run (a folder with a training summary.json) in ${dirs.join(', ')}${notEnded ? `; ${notEnded}` : ''}`,
      { code: 'missing-run' },
    );
  if (notEnded && flags.json) process.stderr.write(`${notEnded}\n`);
  const { keys, groups } = groupRuns(runs, flags.by);
  const against = flags.against ? parseAgainst(flags.against) : undefined;
  const differences = against ? againstBaseline(groups, keys, against) : undefined;
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify(
        groups.map((group) => {
          const paired = differences?.find((item) => item.group === group);
          return {
            settings: group.settings,
            runs: group.runs.map((run) => ({ dir: run.dir, ...run.summary })),
            ...(paired ? { against: { baseline: paired.baseline?.settings ?? null, ...paired.differences } } : {}),
          };
        }),
        null,
        2,
      )}\n`,
    );
    return groups;
  }
  // Runs evaluated with different k are told apart by their evalK column.
  const ks = new Set(runs.map((run) => run.summary.evalUnderH0.k));
  const k = ks.size === 1 ? String([...ks][0]) : 'evalK';
  const rows = groups.map(({ settings, runs: members }) => {
    const summaries = members.map((run) => run.summary);
    return [
      ...keys.map((key) => settings[key] ?? '-'),
      String(members.length),
      [...new Set(summaries.map((summary) => summary.seed))].sort((a, b) => a - b).join(','),
      rates(summaries.map((summary) => summary.evalUnderH0.passAtK)),
      rates(summaries.map((summary) => summary.evalUnderH0.avgAtK)),
      rates(summaries.map((summary) => summary.effectiveGroupRate)),
      rates(summaries.map((summary) => summary.rescueTriggerRate)),
      // Only methods that rescue have a rescue success rate (the others' all-failed groups stay as they are).
      rates(summaries.flatMap((summary) => rescueSuccessOf(summary) ?? [])),
    ];
  });
  const headers = [
    ...keys,
    'runs',
    'seeds',
    `Pass@${k}`,
    `Avg@${k}`,
    'effective groups',
    'all-failed groups',
    'rescue success',
  ];
  process.stdout.write(
    `${renderTable(headers, rows, keys.length + 2)}\n` +
      (runs.length === 1
        ? '1 training run, under H0 on its test tasks (%)'
        : `${runs.length} training runs, under H0 on their test tasks (mean ± sample std over runs, %)`) +
      (keys.length === 0 && runs.length > 1 ? '; they ran with the same settings' : '') +
      (skipped.length > 0 ? `\nleft out, not training runs: ${listed(skipped)}` : '') +
      (notEnded ? `\n${notEnded}` : '') +
      '\n',
  );
  if (differences && against) {
    const { headers, rows: paired } = differencesTable(differences, keys, k);
    process.stdout.write(
      `\nAgainst ${against.join('=')}, paired by seed: the mean difference in percentage points [95% t interval over the pairs]\n` +
        `${renderTable(headers, paired, keys.length + 1)}\n`,
    );
  }
  return groups;
}
