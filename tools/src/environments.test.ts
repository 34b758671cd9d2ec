import type { Environment } from '@harness-s/core';
import { createEmptyPolicy, createOpenAIPolicy, SimulatedPolicy } from '@harness-s/policy';
import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  checkEnvironmentOptions,
  createEnvironment,
  defaultSplit,
  type EnvironmentOptions,
  environmentOptionsFor,
} from './environments.js';

/** The sandbox kind a SWE-Gym environment opened with these options runs its episodes in. */
async function swegymSandbox(options: EnvironmentOptions): Promise<string> {
  const environment = createEnvironment('swegym', options) as Environment & { sandboxKind: string };
  try {
    return environment.sandboxKind;
  } finally {
    await environment.close();
  }
}

describe('confinement of what a policy does', () => {
  it("tells the policies that walk the environment's plans from a model", () => {
    expect(actionsOf(new SimulatedPolicy())).toBe('plan');
    expect(actionsOf(createEmptyPolicy())).toBe('plan');
    expect(actionsOf(createOpenAIPolicy({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }))).toBe('model');
  });

  it("runs plans in the local sandbox by default, and a model's commands in Docker", async () => {
    expect(await swegymSandbox({ actionsFrom: 'plan' })).toBe('local');
    expect(await swegymSandbox({ actionsFrom: 'model' })).toBe('docker');
    // Not saying where actions come from is taken as a model's.
    expect(await swegymSandbox({})).toBe('docker');
    expect(await swegymSandbox({ actionsFrom: 'plan', sandbox: 'docker' })).toBe('docker');
  });

  it("refuses a model's commands in the local sandbox unless the user says --unconfined", async () => {
    expect(() => createEnvironment('swegym', { actionsFrom: 'model', sandbox: 'local' })).toThrow(
      /--sandbox local runs every command on this machine, unconfined.*use --sandbox docker.*--unconfined/,
    );
    expect(await swegymSandbox({ actionsFrom: 'model', sandbox: 'local', unconfined: true })).toBe('local');
    // --unconfined allows the local sandbox; it does not choose it.
    expect(await swegymSandbox({ actionsFrom: 'model', unconfined: true })).toBe('docker');
    expect(() => createEnvironment('swegym', { actionsFrom: 'plan', sandbox: 'vm' })).toThrow(
      /--sandbox must be local or docker, got 'vm'/,
    );
  });
});

describe("an environment's flags", () => {
  it('are refused by an environment that does not take them, naming the flag and who takes it', () => {
    expect(() => createEnvironment('appworld', { scoring: 'normalized' })).toThrow(
      '--scoring is no option of --env appworld (dbbench takes it)',
    );
    expect(() => createEnvironment('dbbench', { sandbox: 'docker' })).toThrow(
      '--sandbox is no option of --env dbbench (swegym takes it)',
    );
    expect(() => createEnvironment('swegym', { db: 'pglite:' })).toThrow('--db is no option of --env swegym');
    expect(() => createEnvironment('dbbench', { appworldUrl: ['http://127.0.0.1:9'] })).toThrow(
      '--appworld-url is no option of --env dbbench (appworld takes it)',
    );
    // actionsFrom is the command's, not a flag's: every environment takes it.
    expect(() => checkEnvironmentOptions(['appworld'], { actionsFrom: 'plan' })).not.toThrow();
  });

  it('go to the environments of a reproduction that take them; one none of them takes is refused', () => {
    const where: EnvironmentOptions = { db: 'pglite:', sandbox: 'docker', actionsFrom: 'plan' };
    expect(() => checkEnvironmentOptions(['dbbench', 'swegym', 'appworld'], where)).not.toThrow();
    expect(environmentOptionsFor('dbbench', where)).toEqual({ db: 'pglite:', actionsFrom: 'plan' });
    expect(environmentOptionsFor('swegym', where)).toEqual({ sandbox: 'docker', actionsFrom: 'plan' });
    expect(environmentOptionsFor('appworld', where)).toEqual({ actionsFrom: 'plan' });
    expect(() => checkEnvironmentOptions(['swegym', 'appworld'], where)).toThrow(
      '--db is no option of any of --envs swegym, appworld (dbbench takes it)',
    );
  });
});

describe('the split eval and replay read without --split', () => {
  it('is dev where the environment ships one, else its first split', () => {
    expect(defaultSplit({ id: 'dbbench', splits: ['dev'] })).toBe('dev');
    expect(defaultSplit({ id: 'swegym', splits: ['train', 'dev', 'test', 'all'] })).toBe('dev');
    expect(defaultSplit({ id: 'mine', splits: ['test', 'train'] })).toBe('test');
    expect(() => defaultSplit({ id: 'mine', splits: [] })).toThrow(/mine ships no split: give --data FILE/);
  });
});
