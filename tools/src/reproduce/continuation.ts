/** What a reproduction continued in its folder checks, and what it keeps of the earlier work. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, readJson } from '@harness-s/core';
import { jsonDifferences } from '../json-differences.js';
import { policyFromDescription } from '../policies.js';
import { type ResultRecord, Results } from './results.js';
import { ablations, reproduceMethods } from './settings.js';

/** What each recorded setting is called in the refusal. */
const settingsNames: Record<string, string> = {
  policy: 'simulated policy settings',
  budgets: 'budgets (--quick)',
  router: 'router settings (--rescue-memory, --failure-ranker)',
};

/**
 * A reproduction continued in its folder must run as it started: records trained with other
 * budgets, another simulated policy or other router settings would be averaged with the new ones
 * into one table. Refuses, naming the first setting that differs, when the folder's config.json
 * says otherwise.
 */
export async function refuseOtherSettings(
  root: string,
  settings: { budgets: unknown; policy: unknown; router?: unknown },
): Promise<void> {
  const path = join(root, 'config.json');
  if (!existsSync(path)) return;
  const earlier = { ...((await readJson(path)) as Record<string, unknown>) };
  const command = earlier['command'];
  if (command !== undefined && command !== 'reproduce')
    throw new ConfigError(
      `${root} holds a run of 'harness-s ${String(command)}', not a reproduction: give --out a new folder or a reproduction's`,
      { code: 'run-exists' },
    );
  // A folder written before a setting existed holds no value for it: read with the policy's
  // defaults for missing fields, as its checkpoints are.
  if (earlier['policy'] && typeof earlier['policy'] === 'object') {
    try {
      earlier['policy'] = policyFromDescription(earlier['policy'] as Record<string, unknown>).describe();
    } catch {
      // Not a description the policy reads: compared as it is.
    }
  }
  // Budgets are compared for the environments both runs have: a continued run may add one.
  const earlierBudgets = earlier['budgets'];
  if (
    earlierBudgets &&
    typeof earlierBudgets === 'object' &&
    settings.budgets &&
    typeof settings.budgets === 'object'
  ) {
    const now = settings.budgets as Record<string, unknown>;
    earlier['budgets'] = Object.fromEntries(Object.entries(earlierBudgets).filter(([env]) => env in now));
    settings = {
      ...settings,
      budgets: Object.fromEntries(Object.entries(now).filter(([env]) => env in earlierBudgets)),
    };
  }
  for (const [key, value] of Object.entries(settings)) {
    const [first] = earlier[key] === undefined ? [] : jsonDifferences(earlier[key], value, key);
    if (first) {
      const shown = (side: unknown) => JSON.stringify(side) ?? 'absent';
      const difference = `${first.path}: ${shown(first.before)} then, ${shown(first.now)} now`;
      throw new ConfigError(
        `${root} was started with other ${settingsNames[key] ?? key} ` +
          `(${path}): ${difference}; continue it with the flags it started with, or use another --out`,
        { code: 'bad-flag' },
      );
    }
  }
}

/** Which run a record is of. */
export const recordKey = (run: { env: string; method: string; variant: string; seed: number }) =>
  `${run.env}/${run.variant}/${run.method}/seed-${run.seed}`;

/** Every training run of a reproduction, in table order: per environment and seed, the methods, then the ablations. */
export const reproduceRuns = (envs: readonly string[], seeds: readonly number[]) =>
  envs.flatMap((env) =>
    seeds.flatMap((seed) => [
      ...reproduceMethods.map((method) => ({ env, seed, method, variant: 'main' as const })),
      ...ablations.map((variant) => ({ env, seed, method: 'harness-s' as const, variant })),
    ]),
  );

/** The records a reproduction's folder has saved, by run; none when it has none or they do not read. */
export async function savedRecords(root: string): Promise<Map<string, ResultRecord>> {
  const path = join(root, 'results.json');
  const parsed = existsSync(path) ? Results.safeParse(await readJson(path).catch(() => null)) : undefined;
  return new Map((parsed?.data?.records ?? []).map((record) => [recordKey(record), record]));
}

/** What config.json records of the runs a reproduction covers. */
export interface ReproduceScope {
  envs: string[];
  seeds: number[];
  budgets: Record<string, unknown>;
  createdAt: string;
}

/**
 * The scope config.json gives a continued reproduction: this invocation's environments, seeds and
 * budgets joined to those of the earlier ones, whose records results.json keeps (so the report
 * names every environment it shows, and a later continuation is held to every budget), with the
 * folder's first creation time and this one as `continuedAt`.
 */
export async function joinEarlierScope(
  root: string,
  scope: ReproduceScope,
): Promise<ReproduceScope & { continuedAt?: string }> {
  const path = join(root, 'config.json');
  const earlier = existsSync(path)
    ? ((await readJson(path).catch(() => ({}))) as Partial<Record<keyof ReproduceScope, unknown>>)
    : {};
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []);
  const numbers = (value: unknown) => (Array.isArray(value) ? value.filter((item) => typeof item === 'number') : []);
  const budgets =
    earlier.budgets && typeof earlier.budgets === 'object' ? (earlier.budgets as Record<string, unknown>) : {};
  const createdAt = typeof earlier.createdAt === 'string' ? earlier.createdAt : undefined;
  return {
    envs: [...new Set([...strings(earlier.envs), ...scope.envs])],
    seeds: [...new Set([...numbers(earlier.seeds), ...scope.seeds])].sort((a, b) => a - b),
    budgets: { ...budgets, ...scope.budgets },
    createdAt: createdAt ?? scope.createdAt,
    ...(createdAt ? { continuedAt: scope.createdAt } : {}),
  };
}
