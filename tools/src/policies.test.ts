import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type EpisodeContext, type Policy, runAttempt, type Trajectory } from '@harness-s/core';
import { resolveHarness } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { RolloutResult } from '@harness-s/queue';
import { afterAll, describe, expect, it } from 'vitest';
import { runTrain } from './commands/train.js';
import { createEnvironment } from './environments.js';
import {
  createPolicy,
  noteUnknownSimSkills,
  policyFromDescription,
  policyFromFlags,
  simulatedSettings,
  simulatedSettingsText,
  unknownSimSkills,
} from './policies.js';

const withoutTimes = (trajectory: Trajectory): unknown =>
  JSON.parse(
    JSON.stringify(trajectory, (key, value) => (key === 'timings' || key === 'latencyMs' ? undefined : value)),
  );

describe('policies travel as data', () => {
  const environment = createEnvironment('dbbench');
  afterAll(() => environment.close());

  /** A trained simulated policy: other theta than the defaults, a later step. */
  async function trainedPolicy(): Promise<SimulatedPolicy> {
    const h0 = await resolveHarness('dbbench', 'h0');
    const [task] = (await environment.loadTasks({ split: 'dev' })).tasks;
    if (!task) throw new Error('no dbbench task');
    const trainer = new SimulatedGrpoTrainer(new SimulatedPolicy(), { learningRate: 2 });
    const run = (attempt: number) =>
      runAttempt({ environment, task, harness: h0, policy: trainer.policy, runId: 'r', attempt, seed: attempt });
    const trajectories = await Promise.all([0, 1, 2, 3].map(run));
    await trainer.update(
      [
        {
          groupId: 'g',
          taskId: task.id,
          task,
          trajectories: trajectories.map((trajectory, index) => ({
            trajectory,
            advantage: index % 2 ? 1 : -1,
            context: 'variant',
            messages: trajectory.messages,
          })),
        },
      ],
      3,
    );
    return trainer.policy;
  }

  it('rebuilds the simulated policy with its trained parameters, acting exactly as the original', async () => {
    const original = await trainedPolicy();
    expect(original.describe()).not.toEqual(new SimulatedPolicy().describe());
    const rebuilt = policyFromDescription(JSON.parse(JSON.stringify(original.describe())));
    expect(rebuilt.version).toBe('sim@3');
    expect(rebuilt.describe()).toEqual(original.describe());

    const h0 = await resolveHarness('dbbench', 'h0');
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const attempt = (policy: Policy, index: number) =>
      runAttempt({
        environment,
        task: tasks[index % tasks.length] as (typeof tasks)[number],
        harness: h0,
        policy,
        runId: 'r',
        attempt: index,
        seed: 100 + index,
      });
    for (const index of [0, 5, 11]) {
      const [mine, theirs] = await Promise.all([attempt(original, index), attempt(rebuilt, index)]);
      expect(withoutTimes(theirs)).toEqual(withoutTimes(mine));
      // What a worker sends back passes the result schema unchanged.
      const travelled = JSON.parse(
        JSON.stringify({
          schemaVersion: 1,
          attemptId: 'a',
          trajectory: theirs,
          worker: { name: 'w', host: 'h', pid: 1 },
        }),
      );
      expect(RolloutResult.parse(travelled)).toEqual(travelled);
    }
  });

  it('rebuilds the oracle, the empty and an OpenAI-compatible policy, the latter without any key', () => {
    for (const name of ['oracle', 'empty']) {
      const policy = createPolicy({ policy: name });
      expect(policyFromDescription(policy.describe()).id).toBe(name);
    }
    const openai = createPolicy({ policy: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', temperature: 0.2 });
    expect(JSON.stringify(openai.describe())).not.toMatch(/apiKey/);
    const rebuilt = policyFromDescription(openai.describe());
    expect(rebuilt.id).toBe('openai:m');
    expect(rebuilt.describe()).toEqual(openai.describe());
  });

  it("gives a rebuilt model's warnings to the hooks given (a worker's log)", async () => {
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi' } }],
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const asking = createPolicy({
        policy: 'openai',
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'm',
        tokenIds: true,
        maxRetries: 0,
      });
      const warnings: string[] = [];
      const rebuilt = policyFromDescription(asking.describe(), { warn: (message) => warnings.push(message) });
      const episode = rebuilt.startEpisode({ seed: 1, envTools: [] } as unknown as EpisodeContext);
      await episode.respond({ messages: [{ role: 'user', content: 'hello' }], tools: [] });
      expect(warnings).toEqual([expect.stringMatching(/without the completion's token ids asked for/)]);
    } finally {
      server.close();
    }
  });

  it('refuses descriptions it cannot rebuild faithfully', () => {
    const described = new SimulatedPolicy().describe();
    expect(() => policyFromDescription({ ...described, step: -1 })).toThrow(ConfigError);
    expect(() => policyFromDescription({ ...described, temperature: 2 })).toThrow(/temperature/);
    expect(() => policyFromDescription({ kind: 'scripted' })).toThrow(/cannot rebuild/);
  });
});

describe("the simulated policy's settings from flags", () => {
  async function file(content: unknown): Promise<string> {
    const path = join(await mkdtemp(join(tmpdir(), 'sim-config-')), 'sim.json');
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  it('are the defaults without flags, and a file changes only what it names', async () => {
    expect(await simulatedSettings({})).toBeUndefined();
    const policy = await policyFromFlags({
      policy: 'sim',
      simConfig: await file({ theta: { 'inspect-table': 3 }, directiveCue: 2 }),
    });
    const config = (policy as SimulatedPolicy).config;
    expect(config.theta['inspect-table']).toBe(3);
    // Skills the file leaves out keep their defaults.
    expect(config.theta['quote-identifiers']).toBe(new SimulatedPolicy().config.theta['quote-identifiers']);
    expect(config.directiveCue).toBe(2);
    expect(config.localitySpread).toBe(0);
  });

  it('take --sim-locality over the file', async () => {
    const simConfig = await file({ localitySpread: 0.5 });
    expect((await simulatedSettings({ simConfig }))?.localitySpread).toBe(0.5);
    expect((await simulatedSettings({ simConfig, simLocality: 1 }))?.localitySpread).toBe(1);
    await expect(simulatedSettings({ simLocality: -1 })).rejects.toThrow(/--sim-locality must be >= 0/);
  });

  it('refuse a field the policy does not know, a wrong value or a broken file, naming the file', async () => {
    const unknown = await file({ thetta: {} });
    await expect(simulatedSettings({ simConfig: unknown })).rejects.toThrow(new RegExp(`${unknown}.*thetta`));
    const wrong = await file({ directiveCue: 'strong' });
    await expect(simulatedSettings({ simConfig: wrong })).rejects.toThrow(new RegExp(`${wrong}.*directiveCue`));
    const broken = await file('{ "theta": ');
    await expect(simulatedSettings({ simConfig: broken })).rejects.toThrow(/not valid JSON/);
    await expect(simulatedSettings({ simConfig: join(tmpdir(), 'no-such-sim.json') })).rejects.toThrow(/cannot read/);
  });

  it('warn of skill names that neither the environment nor the defaults know: they change nothing', () => {
    const dbbench = { id: 'dbbench', skills: [{ name: 'inspect-table' }, { name: 'answer-format' }] };
    // Another environment's skill (a default's) and the per-turn format skill are known.
    const settings = {
      theta: { 'inspect-tabel': 1, 'inspect-table': 2, 'fetch-all-pages': 1, 'action-format': 1 },
      hardTheta: { 'answer-format@3': 1, 'answer-fromat@8': 2 },
    };
    expect(unknownSimSkills(settings, dbbench.skills)).toEqual(['answer-fromat', 'inspect-tabel']);
    const lines: string[] = [];
    noteUnknownSimSkills(new SimulatedPolicy(settings), dbbench, (line) => lines.push(line));
    expect(lines).toEqual([
      "warning: --sim-config names skills that dbbench has no decision point for and the defaults do not list: answer-fromat, inspect-tabel; they change nothing here (dbbench's skills: inspect-table, answer-format)",
    ]);
    noteUnknownSimSkills({ theta: { 'inspect-table': 3 } }, dbbench, (line) => lines.push(line));
    expect(lines).toHaveLength(1);
  });

  it('name what they change from the defaults, for the run log', () => {
    expect(simulatedSettingsText(undefined)).toBe('');
    // A file that repeats a default changes nothing.
    expect(simulatedSettingsText({ directiveCue: new SimulatedPolicy().config.directiveCue })).toBe('');
    expect(
      simulatedSettingsText({ localitySpread: 1, theta: { 'inspect-table': 3 }, hardTheta: { 'exact-values@3': 2 } }),
    ).toBe('theta.inspect-table 3, hardTheta.exact-values@3 2, localitySpread 1');
  });

  it('apply to the simulated policy only', () => {
    expect(() => createPolicy({ policy: 'oracle', sim: { directiveCue: 2 } })).toThrow(/--policy is 'oracle'/);
  });
});

describe("a model's flags", () => {
  it('set how long a request waits and how often it is retried', () => {
    const openai = createPolicy({
      policy: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      requestTimeout: 7,
      maxRetries: 1,
    });
    expect(openai.describe()).toMatchObject({ timeoutMs: 7000, maxRetries: 1 });
  });

  it('are refused where no model acts, and a base URL without its scheme is named', async () => {
    expect(() => createPolicy({ policy: 'sim', tokenIds: true })).toThrow(
      "--token-ids applies to --policy openai, a model behind an endpoint; --policy is 'sim'",
    );
    expect(() => createPolicy({ policy: 'oracle', model: 'm' })).toThrow(/^--model applies to --policy openai/);
    await expect(runTrain({ env: 'dbbench', baseUrl: 'http://127.0.0.1:9/v1', quiet: true } as never)).rejects.toThrow(
      '--base-url applies to --policy openai, a model behind an endpoint; the simulated policy trains here (--policy sim)',
    );
    for (const baseUrl of ['localhost:8000/v1', '127.0.0.1:8000/v1', 'ftp://host/v1'])
      expect(() => createPolicy({ policy: 'openai', model: 'm', baseUrl })).toThrow(
        `--base-url: '${baseUrl}' is not a URL; give the endpoint with its scheme`,
      );
  });
});
