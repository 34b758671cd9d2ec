import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Environment, HarnessSpec } from '@harness-s/core';
import { createCounterEnvironment, plainHarnessSpec } from '@harness-s/core/testing';
import { environmentExtras, resolveHarness, toolCallsCodec } from '@harness-s/harness-dsh';
import { describe, expect, it, vi } from 'vitest';
import { runEvolve } from './commands/evolve.js';
import { runReproduce } from './commands/reproduce.js';
import { createEnvironment, environmentNames } from './environments.js';
import {
  type HarnessSPlugin,
  loadedPluginModules,
  loadPlugins,
  pluginUrl,
  reachesOtherThreads,
  registerPlugin,
} from './plugins.js';

const h0 = (env: string) => (): HarnessSpec => plainHarnessSpec({ id: 'h0', family: 'dsh', env });

const counterPlugin = (name: string): HarnessSPlugin => ({
  // The counter environment under the plug-in's name: an environment's id is its name.
  environment: {
    name,
    create: () => createCounterEnvironment({ id: name }).environment as unknown as Environment,
  },
  harnesses: { h0: h0(name) },
  extras: { env: name, transforms: [], directiveTexts: { count: ['Add the target exactly.'] } },
});

describe('registering a plug-in', () => {
  it('adds its environment, harnesses and extras where every command looks for them', async () => {
    const builtIn = environmentNames();
    registerPlugin(counterPlugin('tally'));
    expect(environmentNames()).toEqual([...builtIn, 'tally']);
    const environment = createEnvironment('tally');
    expect((await environment.loadTasks({ split: 'dev' })).tasks).toHaveLength(3);
    expect((await resolveHarness('tally', 'h0')).spec.env).toBe('tally');
    expect(environmentExtras('tally').directiveTexts).toEqual({ count: ['Add the target exactly.'] });
  });

  it('refuses what is not a plug-in, naming the part and the source', async () => {
    const plugin = counterPlugin('tally-2');
    expect(() => registerPlugin({ ...plugin, harnesses: {} }, 'mine.js')).toThrow(
      /plug-in mine\.js: harnesses\.h0 must be a function returning H0/,
    );
    expect(() => registerPlugin({ ...plugin, extras: { env: 'other', transforms: [] } }, 'mine.js')).toThrow(
      /extras\.env is 'other', not the environment's name 'tally-2'/,
    );
    const { extras: _none, ...withoutExtras } = plugin;
    expect(() =>
      registerPlugin({
        ...withoutExtras,
        environment: { ...plugin.environment, name: 'dbbench' },
        harnesses: { h0: h0('dbbench') },
      }),
    ).toThrow(/environment 'dbbench' is already registered/);
    expect(() => registerPlugin({ ...plugin, codecs: [toolCallsCodec] }, 'mine.js')).toThrow(
      "plug-in mine.js: codecs: codec 'tool-calls' is already registered",
    );
    // A harness that is not a spec, or names a codec nobody registered, is refused at load, by its name.
    const spec = h0('tally-2')();
    const { truncationMarker: _marker, ...context } = spec.context;
    expect(() =>
      registerPlugin({ ...plugin, harnesses: { h0: () => ({ ...spec, context }) as never } }, 'mine.js'),
    ).toThrow(/^plug-in mine\.js: harnesses\.h0 is not a harness spec: context\.truncationMarker: /);
    expect(() =>
      registerPlugin(
        { ...plugin, harnesses: { h0: () => ({ ...spec, codec: { ...spec.codec, kind: 'smoke-signals' } }) } },
        'mine.js',
      ),
    ).toThrow(
      /^plug-in mine\.js: harnesses\.h0: codec\.kind: unknown action codec 'smoke-signals'; known: .*tool-calls/,
    );
    expect(() => registerPlugin(counterPlugin('Tally 3'))).toThrow(
      /environment\.name must be lower-case letters, digits and dashes, got "Tally 3"/,
    );
    expect(() => registerPlugin({ ...plugin, harnesses: { h0: h0('counter') } }, 'mine.js')).toThrow(
      "plug-in mine.js: harnesses.h0 is a harness of env 'counter', not of the environment's name 'tally-2'",
    );
    expect(() => registerPlugin({ ...plugin, harnesses: { h0: () => 42 as never } }, 'mine.js')).toThrow(
      'plug-in mine.js: harnesses.h0 must return a harness spec (data with an env), not a Harness or anything else',
    );
    // An environment whose id is not its name is refused when it is made.
    registerPlugin({
      ...plugin,
      environment: { name: 'tally-4', create: () => createCounterEnvironment().environment as unknown as Environment },
      harnesses: { h0: h0('tally-4') },
      extras: { env: 'tally-4', transforms: [] },
    });
    expect(() => createEnvironment('tally-4')).toThrow(
      "environment 'tally-4' creates an environment whose id is 'counter': they must be equal",
    );
    // Nothing of a refused plug-in is registered (its harnesses included: the ones refused above
    // left no harness of tally-2 behind).
    await expect(resolveHarness('tally-2', 'h0')).rejects.toThrow(/unknown harness 'h0'/);
    expect(environmentNames()).not.toContain('tally-2');
    await expect(resolveHarness('Tally 3', 'h0')).rejects.toThrow(/unknown harness 'h0'/);
  });

  it('takes back what it registered of a plug-in refused part way, so the corrected one registers', async () => {
    const plugin = counterPlugin('tally-6');
    const smoke = { ...toolCallsCodec, kind: 'smoke-signals' };
    const spec = { ...h0('tally-6')(), codec: { ...h0('tally-6')().codec, kind: 'smoke-signals' } };
    // Its codec and extras registered, its harness does not build: a transform no extras bring.
    const broken: HarnessSPlugin = {
      ...plugin,
      codecs: [smoke],
      harnesses: { h0: () => ({ ...spec, tools: [{ kind: 'no-such-transform', options: {} }] }) },
    };
    expect(() => registerPlugin(broken, 'mine.js')).toThrow(/^plug-in mine\.js: harnesses\.h0: .*no-such-transform/);
    expect(environmentNames()).not.toContain('tally-6');
    await expect(resolveHarness('tally-6', 'h0')).rejects.toThrow(/unknown harness 'h0'/);
    expect(environmentExtras('tally-6').directiveTexts).toBeUndefined();
    // A codec listed twice is refused at the second; the first is taken back.
    expect(() =>
      registerPlugin({ ...plugin, codecs: [smoke, smoke], harnesses: { h0: () => spec } }, 'mine.js'),
    ).toThrow("plug-in mine.js: codecs: codec 'smoke-signals' is already registered");
    registerPlugin({ ...plugin, codecs: [smoke], harnesses: { h0: () => spec } }, 'mine.js');
    expect((await resolveHarness('tally-6', 'h0')).spec.codec.kind).toBe('smoke-signals');
    expect(environmentExtras('tally-6').directiveTexts).toEqual({ count: ['Add the target exactly.'] });
  });
});

describe('evolving on a plug-in without extras', () => {
  it('says why the built-in analyser wrote no variant, and where extras go', async () => {
    const { extras: _none, ...plugin } = counterPlugin('tally-5');
    registerPlugin(plugin);
    let printed = '';
    const written = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      printed += String(text);
      return true;
    });
    try {
      await runEvolve({
        env: 'tally-5',
        rounds: 1,
        out: join(await mkdtemp(join(tmpdir(), 'no-extras-')), 'pool'),
        policy: 'sim',
        subset: 'all',
        k: 1,
        seed: 1,
        concurrency: 1,
        parents: 1,
        directions: 2,
        childrenPerDirection: 1,
        solved: 'majority',
      });
    } finally {
      written.mockRestore();
    }
    expect(printed).toMatch(
      /round 1: parents h0; 0 new children\n {2}tally-5 has no evolution extras \(failure signals/,
    );
    expect(printed).toMatch(/docs\/adding-an-environment\.md/);
  });
});

describe('finding a plug-in package', () => {
  /** A project with two installed packages that are not plug-ins: one CommonJS, one ESM-only. */
  async function project() {
    const root = await mkdtemp(join(tmpdir(), 'plugin-project-'));
    const cjs = join(root, 'node_modules', 'cjs-plugin');
    await mkdir(cjs, { recursive: true });
    await writeFile(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-plugin', main: 'main.js' }));
    await writeFile(join(cjs, 'main.js'), 'module.exports = 42;\n');
    const esm = join(root, 'node_modules', '@acme', 'esm-plugin');
    await mkdir(join(esm, 'lib'), { recursive: true });
    await writeFile(
      join(esm, 'package.json'),
      JSON.stringify({ name: '@acme/esm-plugin', type: 'module', exports: { '.': { import: './lib/index.js' } } }),
    );
    await writeFile(join(esm, 'lib', 'index.js'), "export default 'not a plug-in';\n");
    const nested = join(root, 'apps', 'bench');
    await mkdir(nested, { recursive: true });
    return { root, cjs, esm, nested };
  }

  it("finds packages installed in the user's project, ESM-only ones included, from any folder below it", async () => {
    const { root, cjs, esm, nested } = await project();
    expect(pluginUrl('cjs-plugin', root)).toBe(pathToFileURL(join(cjs, 'main.js')).href);
    expect(pluginUrl('@acme/esm-plugin', nested)).toBe(pathToFileURL(join(esm, 'lib', 'index.js')).href);
    expect(pluginUrl('./local.js', nested)).toBe(pathToFileURL(join(nested, 'local.js')).href);
    // Not installed there: left to harness-s's own resolution.
    expect(pluginUrl('@acme/elsewhere', root)).toBe('@acme/elsewhere');
  });

  it('loads them from there, so a broken one is refused by its own name', async () => {
    const { nested } = await project();
    await expect(loadPlugins('cjs-plugin', nested)).rejects.toThrow(
      /plug-in 'cjs-plugin' \(loadPlugins\): is not an object/,
    );
    await expect(loadPlugins(' @acme/esm-plugin ', nested)).rejects.toThrow(
      /plug-in '@acme\/esm-plugin' \(loadPlugins\): is not an object/,
    );
    await expect(loadPlugins('@acme/elsewhere', nested)).rejects.toThrow(
      `loadPlugins: cannot load '@acme/elsewhere' (looked up from ${nested}): `,
    );
    // A module with no plug-in in it says so, not that its plug-in is not an object.
    await writeFile(join(nested, 'helpers.mjs'), 'export const helper = 1;\n');
    await expect(loadPlugins('./helpers.mjs', nested)).rejects.toThrow(
      "loadPlugins: './helpers.mjs' loads, but exports no plug-in: export one made with definePlugin as its default export (or as `plugin`)",
    );
    // From the environment variable, the errors name it.
    const saved = process.env['HARNESS_S_PLUGINS'];
    process.env['HARNESS_S_PLUGINS'] = '@acme/elsewhere';
    try {
      await expect(loadPlugins(undefined, nested)).rejects.toThrow(
        /^HARNESS_S_PLUGINS: cannot load '@acme\/elsewhere'/,
      );
    } finally {
      if (saved === undefined) delete process.env['HARNESS_S_PLUGINS'];
      else process.env['HARNESS_S_PLUGINS'] = saved;
    }
  });
});

describe('plug-ins in worker threads', () => {
  it('hands the modules it loaded to other threads, and refuses to send them an environment registered in code', async () => {
    registerPlugin(counterPlugin('tally-3'));
    expect(reachesOtherThreads('tally-3')).toBe(false);
    expect(reachesOtherThreads('dbbench')).toBe(true);
    const fixture = new URL('../../tests/src/fixtures/counter-plugin.ts', import.meta.url);
    expect(await loadPlugins(fixture.href)).toEqual([fixture.href]);
    expect(loadedPluginModules()).toEqual([fixture.href]);
    expect(reachesOtherThreads('counter')).toBe(true);
    const out = await mkdtemp(join(tmpdir(), 'in-code-'));
    await expect(runReproduce({ envs: ['tally-3'], jobs: 2, quick: true, out, concurrency: 1 })).rejects.toThrow(
      /--envs tally-3: registered in code, which --jobs 2's worker threads cannot see; .*or use --jobs 1/,
    );
  });
});
