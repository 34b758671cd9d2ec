import { ConfigError, type Harness, type HarnessSpec, readJson } from '@harness-s/core';
import { appworldH0 } from './appworld.js';
import { dbbenchH0 } from './dbbench.js';
import { appworldMinimal } from './families/appworld.js';
import { dbbenchCodeAct, dbbenchMinimal } from './families/dbbench.js';
import { swegymCodeAct } from './families/swegym.js';
import { createHarness } from './harness.js';
import { swegymH0 } from './swe.js';

/** Built-in harness specs by environment and name. */
const builtIns: Record<string, Record<string, () => HarnessSpec>> = {
  dbbench: {
    h0: () => dbbenchH0('tool-calls'),
    'h0-text': () => dbbenchH0('dbbench-text'),
    minimal: dbbenchMinimal,
    codeact: dbbenchCodeAct,
  },
  swegym: {
    h0: () => swegymH0('tool-calls'),
    'h0-text': () => swegymH0('swe-text'),
    codeact: swegymCodeAct,
  },
  appworld: {
    h0: () => appworldH0('code-block'),
    'h0-tools': () => appworldH0('tool-calls'),
    'h0-python': () => appworldH0('code-block', 'python'),
    'h0-python-tools': () => appworldH0('tool-calls', 'python'),
    minimal: () => appworldMinimal(),
    'minimal-python': () => appworldMinimal('python'),
  },
};

/**
 * Registers the built-in harnesses of an environment this package does not ship (a plug-in's), by
 * name; `h0` is its base harness. Names it already has are refused.
 */
export function registerBuiltInHarnesses(env: string, specs: Readonly<Record<string, () => HarnessSpec>>): void {
  if (!specs['h0'] && !builtIns[env]?.['h0']) {
    throw new ConfigError(`harnesses of '${env}': no base harness h0`, { code: 'no-base-harness' });
  }
  const known = builtIns[env] ?? {};
  const taken = Object.keys(specs).filter((name) => name in known);
  if (taken.length) {
    throw new ConfigError(`harnesses of '${env}': ${taken.join(', ')} already registered`, {
      code: 'duplicate-harness',
    });
  }
  builtIns[env] = { ...known, ...specs };
}

/** Removes harnesses `registerBuiltInHarnesses` added (a plug-in refused after it registered them). */
export function unregisterBuiltInHarnesses(env: string, names: readonly string[]): void {
  const known = builtIns[env];
  if (!known) return;
  for (const name of names) delete known[name];
  if (Object.keys(known).length === 0) delete builtIns[env];
}

/** Names of the built-in harnesses for an environment. */
/** Said where an environment has no harness of its own: where harnesses are registered. */
export const noHarnessesHint =
  "it has none: an environment's harnesses, H0 ('h0') among them, are the registry's `builtIns` of @harness-s/harness-dsh, or come from registerBuiltInHarnesses or a plug-in's `harnesses`";

export function builtInHarnesses(env: string): string[] {
  return Object.keys(builtIns[env] ?? {});
}

/** A built-in harness spec by environment and name, or undefined. */
export function builtInHarnessSpec(env: string, name: string): HarnessSpec | undefined {
  return builtIns[env]?.[name]?.();
}

/** The base harness H0 of an environment. */
export function baseHarnessSpec(env: string): HarnessSpec {
  const make = builtIns[env]?.['h0'];
  if (!make) throw new ConfigError(`no base harness for environment '${env}'`, { code: 'no-base-harness' });
  return make();
}

/**
 * Resolves `--harness`: a built-in name (`h0`, `h0-text`) or a path to a harness spec JSON file.
 * A spec for another environment is refused.
 */
export async function resolveHarness(env: string, nameOrPath: string): Promise<Harness> {
  const builtIn = builtIns[env]?.[nameOrPath];
  if (builtIn) return createHarness(builtIn(), `built-in harness ${nameOrPath}`);
  if (!nameOrPath.endsWith('.json')) {
    const known = builtInHarnesses(env);
    throw new ConfigError(
      `unknown harness '${nameOrPath}' for --env ${env}; ${known.length ? `use one of ${known.join(', ')} or a spec .json file` : noHarnessesHint}`,
      { code: 'unknown-harness' },
    );
  }
  const harness = createHarness(await readJson(nameOrPath), nameOrPath);
  if (harness.spec.env !== env) {
    throw new ConfigError(`${nameOrPath}: env is '${harness.spec.env}' but --env is '${env}'`, {
      code: 'harness-env-mismatch',
    });
  }
  return harness;
}
