import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Environment, HarnessSpec } from '@harness-s/core';
import { createCounterEnvironment, plainHarnessSpec } from '@harness-s/core/testing';
import { environmentExtras, resolveHarness, toolCallsCodec } from '@harness-s/harness-dsh';
import { describe, expect, it } from 'vitest';
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
  environment: { name, create: () => createCounterEnvironment().environment as unknown as Environment },
  harnesses: { h0: h0(name) },
  extras: { env: name, transforms: [], directiveTexts: { count: ['Add the target exactly.'] } },
});

describe('registering a plug-in', () => {
  it('adds its environment, harnesses and extras where every command looks for them', async () => {
    registerPlugin(counterPlugin('tally'));
    expect(environmentNames()).toEqual(['dbbench', 'swegym', 'appworld', 'tally']);
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
    expect(() => registerPlugin({ ...withoutExtras, environment: { ...plugin.environment, name: 'dbbench' } })).toThrow(
      /environment 'dbbench' is already registered/,
    );
    expect(() => registerPlugin({ ...plugin, codecs: [toolCallsCodec] })).toThrow(
      /codec 'tool-calls' is already registered/,
    );
    expect(() => registerPlugin(counterPlugin('Tally 3'))).toThrow(
      /environment\.name must be lower-case letters, digits and dashes, got "Tally 3"/,
    );
    // Nothing of a refused plug-in is registered.
    expect(environmentNames()).not.toContain('tally-2');
    await expect(resolveHarness('Tally 3', 'h0')).rejects.toThrow(/unknown harness 'h0'/);
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
      /^loadPlugins: cannot load '@acme\/elsewhere'/,
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
