import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ActionCodec, ConfigError, formatZodError, HarnessSpec } from '@harness-s/core';
import {
  codecKinds,
  createHarness,
  type EnvironmentExtras,
  environmentExtras,
  hasEnvironmentExtras,
  registerBuiltInHarnesses,
  registerCodec,
  registerEnvironmentExtras,
  unregisterBuiltInHarnesses,
  unregisterCodec,
  unregisterEnvironmentExtras,
} from '@harness-s/harness-dsh';
import { builtInEnvironments } from './builtin-environments.js';
import { type EnvironmentEntry, environmentName, findEnvironment, registerEnvironment } from './environments.js';

/**
 * A benchmark packaged for the command line: its environment, its built-in harnesses (`h0` at
 * least), and optionally what evolution needs of it and the action codecs its harnesses use. A
 * module whose default export is one (see `definePlugin`) is loaded by naming it in
 * `HARNESS_S_PLUGINS`; code that builds its own command line calls `registerPlugin`.
 */
export interface HarnessSPlugin {
  environment: EnvironmentEntry;
  /** Harness specs by name; `h0` is the base harness every method starts from. */
  harnesses: Readonly<Record<string, () => HarnessSpec>>;
  /** Tool transforms, failure signals and rule wordings for evolution (default: none). */
  extras?: EnvironmentExtras;
  /** Action codecs the harnesses name beyond the built-in ones. */
  codecs?: readonly ActionCodec[];
}

/** Types a plug-in's default export. */
export const definePlugin = (plugin: HarnessSPlugin): HarnessSPlugin => plugin;

/** Refuses a plug-in that is not one, naming what is wrong and where it came from. */
function checkPlugin(value: unknown, source: string): asserts value is HarnessSPlugin {
  const bad = (what: string) => new ConfigError(`plug-in ${source}: ${what}`, { code: 'bad-plugin' });
  const plugin = value as Partial<HarnessSPlugin> | null;
  if (!plugin || typeof plugin !== 'object') throw bad('is not an object (export one made with definePlugin)');
  const environment = plugin.environment as Partial<EnvironmentEntry> | undefined;
  if (typeof environment?.name !== 'string' || !environmentName.test(environment.name)) {
    throw bad(
      `environment.name must be lower-case letters, digits and dashes, got ${JSON.stringify(environment?.name)}`,
    );
  }
  if (typeof environment.create !== 'function') throw bad('environment.create must be a function');
  if (typeof plugin.harnesses?.['h0'] !== 'function') throw bad('harnesses.h0 must be a function returning H0');
  if (plugin.extras && plugin.extras.env !== environment.name) {
    throw bad(`extras.env is '${plugin.extras.env}', not the environment's name '${environment.name}'`);
  }
  let h0: Partial<HarnessSpec> | undefined;
  try {
    h0 = plugin.harnesses['h0']();
  } catch (error) {
    throw bad(`harnesses.h0 failed: ${(error as Error).message}`);
  }
  if (!h0 || typeof h0 !== 'object' || typeof h0.env !== 'string')
    throw bad('harnesses.h0 must return a harness spec (data with an env), not a Harness or anything else');
  if (h0.env !== environment.name) {
    throw bad(`harnesses.h0 is a harness of env '${h0.env}', not of the environment's name '${environment.name}'`);
  }
  // Every harness is data a schema checks: a mistake is said now, with the harness's name.
  for (const [name, make] of Object.entries(plugin.harnesses)) {
    if (typeof make !== 'function') throw bad(`harnesses.${name} must be a function returning a harness spec`);
    let spec: unknown;
    try {
      spec = make();
    } catch (error) {
      throw bad(`harnesses.${name} failed: ${(error as Error).message}`);
    }
    const parsed = HarnessSpec.safeParse(spec);
    if (!parsed.success) throw bad(`harnesses.${name} is not a harness spec: ${formatZodError(parsed.error)}`);
    // Known already, or brought by the plug-in: refused before anything of it is registered.
    const known = [...codecKinds(), ...(plugin.codecs ?? []).map((codec) => codec.kind)];
    if (!known.includes(parsed.data.codec.kind))
      throw bad(
        `harnesses.${name}: codec.kind: unknown action codec '${parsed.data.codec.kind}'; known: ${known.join(', ')} (a plug-in brings its own in codecs)`,
      );
  }
}

const loaded = new Set<string>();
/** Environment name -> the module its plug-in came from, for plug-ins loaded from modules. */
const modules = new Map<string, string>();

/**
 * The modules of the plug-ins loaded so far, as URLs: what another thread loads to have the same
 * environments (`reproduce`'s worker threads do).
 */
export const loadedPluginModules = (): string[] => [...new Set(modules.values())];

/** The environments of the plug-ins loaded from modules so far. */
export const loadedPluginEnvironments = (): string[] => [...modules.keys()];

/**
 * Whether a thread that loads `loadedPluginModules()` has this environment: a built-in one or one
 * of a plug-in loaded from a module, not one registered in code (`registerPlugin`,
 * `registerEnvironment`).
 */
export const reachesOtherThreads = (env: string): boolean =>
  modules.has(env) || builtInEnvironments.some((entry) => entry.name === env);

/** Registers a plug-in's environment, harnesses, codecs and extras. */
export function registerPlugin(plugin: HarnessSPlugin, source = 'given in code'): void {
  checkPlugin(plugin, source);
  const { name } = plugin.environment;
  if (findEnvironment(name)) {
    throw new ConfigError(`plug-in ${source}: environment '${name}' is already registered`, {
      code: 'duplicate-environment',
    });
  }
  // Registered part by part; a part refused takes back what came before it, so a corrected
  // plug-in can be registered after.
  const undo: Array<() => void> = [];
  try {
    for (const codec of plugin.codecs ?? []) {
      try {
        registerCodec(codec);
      } catch (error) {
        throw new ConfigError(`plug-in ${source}: codecs: ${(error as Error).message}`, { code: 'bad-plugin' });
      }
      undo.push(() => unregisterCodec(codec.kind));
    }
    registerBuiltInHarnesses(name, plugin.harnesses);
    undo.push(() => unregisterBuiltInHarnesses(name, Object.keys(plugin.harnesses)));
    if (plugin.extras) {
      const previous = hasEnvironmentExtras(name) ? environmentExtras(name) : undefined;
      registerEnvironmentExtras(plugin.extras);
      undo.push(() => (previous ? registerEnvironmentExtras(previous) : unregisterEnvironmentExtras(name)));
    }
    // With its codecs and extras in place, every harness must build (its codec known, its transforms found).
    for (const [harnessName, make] of Object.entries(plugin.harnesses)) {
      try {
        createHarness(make(), `harnesses.${harnessName}`);
      } catch (error) {
        throw new ConfigError(`plug-in ${source}: ${(error as Error).message}`, {
          code: 'bad-plugin',
        });
      }
    }
    registerEnvironment(plugin.environment);
  } catch (error) {
    for (const step of undo.reverse()) step();
    throw error;
  }
}

/** The entry of a package's `exports` (or `main`) an ESM import of its root reaches, if any. */
function packageEntry(directory: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    exports?: unknown;
    main?: string;
  };
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target;
    if (!target || typeof target !== 'object' || Array.isArray(target)) return undefined;
    const conditions = target as Record<string, unknown>;
    if ('.' in conditions) return pick(conditions['.']);
    for (const condition of ['import', 'node', 'default']) {
      const found = pick(conditions[condition]);
      if (found) return found;
    }
    return undefined;
  };
  const entry = pick(manifest.exports) ?? manifest.main ?? 'index.js';
  const path = join(directory, entry);
  return existsSync(path) ? path : undefined;
}

/**
 * Where a plug-in module is: a path (`./x.js`, `/abs/x.js`) from `from`; a package name as Node
 * finds it from `from` (the working directory: a user's project that installed the plug-in),
 * including ESM-only packages; otherwise as harness-s finds its own packages (installed beside it).
 */
export function pluginUrl(specifier: string, from = process.cwd()): string {
  if (specifier.startsWith('file:')) return specifier;
  if (specifier.startsWith('.') || isAbsolute(specifier)) return pathToFileURL(resolve(from, specifier)).href;
  // A package root: its ESM entry first (what an import reaches), found up the folders from `from`.
  const root = specifier.split('/').length === (specifier.startsWith('@') ? 2 : 1);
  for (let directory = from; root; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', specifier);
    const entry = existsSync(join(candidate, 'package.json')) ? packageEntry(candidate) : undefined;
    if (entry) return pathToFileURL(entry).href;
    if (dirname(directory) === directory) break;
  }
  // A subpath, or a package only `require` resolves from there.
  try {
    return pathToFileURL(createRequire(join(from, 'package.json')).resolve(specifier)).href;
  } catch {
    return specifier;
  }
}

/**
 * Loads the plug-ins a comma-separated list names (by default `HARNESS_S_PLUGINS`): paths to modules
 * (from `from`, the working directory), or package names, found from there first, then beside
 * harness-s (`pluginUrl`). Each is loaded once per thread; returns the ones loaded now. Errors name
 * `source`: where the list came from (`HARNESS_S_PLUGINS` when it came from there, else
 * `loadPlugins`).
 */
export async function loadPlugins(
  list?: string,
  from = process.cwd(),
  source = list === undefined ? 'HARNESS_S_PLUGINS' : 'loadPlugins',
): Promise<string[]> {
  list ??= process.env['HARNESS_S_PLUGINS'] ?? '';
  const now: string[] = [];
  for (const specifier of list.split(',').map((item) => item.trim())) {
    if (!specifier) continue;
    const url = pluginUrl(specifier, from);
    if (loaded.has(url)) continue;
    let module: { default?: unknown; plugin?: unknown };
    try {
      module = await import(url);
    } catch (error) {
      throw new ConfigError(
        `${source}: cannot load '${specifier}' (looked up from ${from}): ${(error as Error).message}`,
        { code: 'bad-plugin' },
      );
    }
    if (module.default === undefined && module.plugin === undefined)
      throw new ConfigError(
        `${source}: '${specifier}' loads, but exports no plug-in: export one made with definePlugin as its default export (or as \`plugin\`)`,
        { code: 'bad-plugin' },
      );
    const plugin = (module.default ?? module.plugin) as HarnessSPlugin;
    registerPlugin(plugin, `'${specifier}' (${source})`);
    modules.set(plugin.environment.name, url);
    loaded.add(url);
    now.push(specifier);
  }
  return now;
}
