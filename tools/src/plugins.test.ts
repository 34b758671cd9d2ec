import type { Environment, HarnessSpec } from '@harness-s/core';
import { createCounterEnvironment, plainHarnessSpec } from '@harness-s/core/testing';
import { environmentExtras, resolveHarness, toolCallsCodec } from '@harness-s/harness-dsh';
import { describe, expect, it } from 'vitest';
import { createEnvironment, environmentNames } from './environments.js';
import { type HarnessSPlugin, registerPlugin } from './plugins.js';

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
