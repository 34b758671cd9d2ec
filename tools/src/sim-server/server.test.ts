import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Harness,
  type RescueContext,
  rerenderTrajectory,
  runAttempt,
  runLockFile,
  type ScoredGroup,
  type ScoredTrajectory,
  type Trajectory,
  trainingExample,
} from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0, deriveVariant, environmentExtras, proposeChanges } from '@harness-s/harness-dsh';
import { createOpenAIPolicy, SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainedPolicy } from '../policies.js';
import { type SimulatedModelServer, startSimulatedModelServer } from './server.js';
import { SimulatedModelWorld } from './world.js';

const environment = createDbbenchEnvironment();
const h0 = createHarness(dbbenchH0());
/** Directive variants for three skills (no retry rule, so every draw shows in the transcript). */
const pool: Harness[] = ['inspect-table', 'verify-after-write', 'exact-values'].map((skill) => {
  const context = { skills: environment.skills, extras: environmentExtras('dbbench') };
  const [change] = proposeChanges(h0.spec, { name: skill, skills: [skill], causes: [], tasks: [] }, context);
  if (!change) throw new Error(`no change proposed for ${skill}`);
  return createHarness(deriveVariant(h0.spec, h0.spec, change));
});
// Writes no turn without an action: re-rendered under H0 such a turn is left out, and its format draw with it.
const initial = new SimulatedPolicy({ theta: { 'verify-after-write': -1, 'inspect-table': 0 }, actionFormatTheta: 20 });
let server: SimulatedModelServer;

/** The server's own environment, as a server in another process has: episodes of both run at once. */
const served = createDbbenchEnvironment();

beforeAll(async () => {
  const world = await SimulatedModelWorld.open(served, pool, h0);
  server = await startSimulatedModelServer({ world, policy: initial, seed: 3 });
});
afterAll(async () => {
  await server.close();
  await Promise.all([environment.close(), served.close()]);
});

const post = (path: string, body: string) =>
  fetch(`${server.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('the served simulated model', () => {
  it('acts as the simulated policy through the OpenAI-compatible client, under H0 and under variants', async () => {
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const policy = createOpenAIPolicy({ baseUrl: server.url, model: 'sim', maxRetries: 0 });
    const outcomes = await Promise.all(
      tasks
        .slice(0, 16)
        .flatMap((task, index) =>
          [h0, pool[index % pool.length] as Harness].map((harness) =>
            runAttempt({ environment, task, harness, policy, runId: 's', attempt: 0, seed: index }),
          ),
        ),
    );
    expect(outcomes.every((trajectory) => trajectory.stopReason !== 'infrastructure-error')).toBe(true);
    const solved = outcomes.filter((trajectory) => trajectory.evaluation?.success).length;
    // An error-prone policy: some attempts solve their task, some do not.
    expect(solved).toBeGreaterThan(3);
    expect(solved).toBeLessThan(outcomes.length);
    expect(outcomes.some((trajectory) => trajectory.turns.length > 2)).toBe(true);
  });

  it('draws an episode as the embedded policy does with the seed a request carries (seeded: the attempt seed)', async () => {
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const served = createOpenAIPolicy({ baseUrl: server.url, model: 'sim', maxRetries: 0, seeded: true });
    let compared = 0;
    for (const [index, task] of tasks.slice(0, 8).entries()) {
      const harness = index % 2 === 0 ? h0 : (pool[index % pool.length] as Harness);
      const seed = 100 + index;
      const [remote, local] = await Promise.all([
        runAttempt({ environment, task, harness, policy: served, runId: 'r', attempt: 0, seed }),
        runAttempt({ environment, task, harness, policy: initial, runId: 'l', attempt: 0, seed }),
      ]);
      const said = (trajectory: Trajectory) =>
        trajectory.turns.map((turn) => [turn.response.content, turn.response.toolCalls?.map((call) => call.arguments)]);
      expect(said(remote), `${task.id} under ${harness.spec.id}`).toEqual(said(local));
      expect(remote.evaluation?.success).toBe(local.evaluation?.success);
      // The same seed on every turn, yet each call has an id of its own for the tool messages to answer.
      const ids = remote.turns.flatMap((turn) => turn.response.toolCalls?.map((call) => call.id) ?? []);
      expect(new Set(ids).size).toBe(ids.length);
      compared += remote.turns.length;
    }
    expect(compared).toBeGreaterThan(16);
  });

  it('learns from a batch exactly as the embedded trainer learns from the same attempts, and replaces a step sent again', async () => {
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const groups: ScoredGroup[] = [];
    const lines: string[] = [];
    for (const [index, task] of tasks.slice(20, 32).entries()) {
      const harness = index % 3 === 0 ? h0 : (pool[index % pool.length] as Harness);
      const context: RescueContext = index % 2 === 0 ? 'h0' : 'variant';
      const attempts: Trajectory[] = [];
      for (const attempt of [0, 1, 2, 3])
        attempts.push(
          await runAttempt({ environment, task, harness, policy: initial, runId: 'b', attempt, seed: 7 + attempt }),
        );
      const rewards = attempts.map((trajectory) => trajectory.evaluation?.reward ?? 0);
      const mean = rewards.reduce((sum, value) => sum + value, 0) / rewards.length;
      const scored = attempts.map(
        (trajectory, item): ScoredTrajectory => ({
          trajectory,
          advantage: (rewards[item] ?? 0) - mean,
          context,
          messages: context === 'h0' ? rerenderTrajectory(trajectory, task, h0) : trajectory.messages,
        }),
      );
      groups.push({ groupId: `1:${task.id}`, taskId: task.id, task, trajectories: scored });
      for (const item of scored)
        lines.push(
          JSON.stringify(
            trainingExample(item.trajectory, {
              groupId: `1:${task.id}`,
              step: 1,
              context,
              messages: item.messages,
              advantage: item.advantage,
              h0Id: h0.spec.id,
            }),
          ),
        );
    }
    expect(groups.some((group) => group.trajectories.some((item) => item.advantage !== 0))).toBe(true);
    const expected = (await new SimulatedGrpoTrainer(initial).update(groups, 1)).policy as SimulatedPolicy;

    const response = await post('/sim/update?step=1', lines.join('\n'));
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({
      step: 1,
      examples: lines.length,
      groups: groups.length,
      unfollowed: [],
    });
    const learned = server.policy;
    expect(learned.step).toBe(1);
    for (const [skill, value] of Object.entries(expected.config.theta))
      expect(learned.config.theta[skill], skill).toBeCloseTo(value, 9);
    expect(learned.config.actionFormatTheta).toBeCloseTo(expected.config.actionFormatTheta, 9);
    expect(Object.keys(learned.config.hardTheta).sort()).toEqual(Object.keys(expected.config.hardTheta).sort());
    for (const [hardClass, value] of Object.entries(expected.config.hardTheta))
      expect(learned.config.hardTheta[hardClass], hardClass).toBeCloseTo(value, 9);
    expect(learned.config.theta['verify-after-write']).not.toBeCloseTo(-1, 3);

    // Lines say the step they come from: handed over as another step, the batch is refused.
    const asStep = (step: number, some = lines) =>
      some.map((line) => JSON.stringify({ ...JSON.parse(line), step })).join('\n');
    const misfiled = await post('/sim/update?step=2', lines.join('\n'));
    expect(misfiled.status).toBe(400);
    expect(await misfiled.text()).toMatch(/batch line 1: comes from step 1, but the batch is handed over as step 2/);
    // An attempt the run did not train on (export --all) is refused, not learned from at advantage 0.
    const untrained = lines.map((line, index) =>
      index === 2 ? JSON.stringify({ ...JSON.parse(line), trained: false }) : line,
    );
    const withUntrained = await post('/sim/update?step=1', untrained.join('\n'));
    expect(withUntrained.status).toBe(400);
    expect(await withUntrained.text()).toMatch(/batch line 3 \(1:[^)]+\): the run did not train on this attempt/);
    // Step 2 builds on step 1; step 1 handed over again replaces its update and drops step 2.
    expect((await post('/sim/update?step=2&run=a', asStep(2, lines.slice(0, 4)))).status).toBe(200);
    expect(server.policy.step).toBe(2);
    // Another run's batch would roll back run a's updates: refused, nothing changed.
    const intruder = await fetch(`${server.url}/sim/update?step=1`, {
      method: 'POST',
      headers: { 'X-Harness-S-Run': 'b' },
      body: lines.join('\n'),
    });
    expect(intruder.status).toBe(409);
    expect(await intruder.text()).toMatch(/come from run a .*a batch of run b would replace them/);
    expect(server.policy.step).toBe(2);
    expect((await post('/sim/update?step=1&run=a', lines.join('\n'))).status).toBe(200);
    expect(server.policy.step).toBe(1);
    expect(server.policy.config.theta).toEqual(learned.config.theta);
    expect(server.updates.map((update) => update.step)).toEqual([1]);
    const skipped = await post('/sim/update?step=3', asStep(3));
    expect(skipped.status).toBe(409);
    expect(((await skipped.json()) as { error: { message: string } }).error.message).toMatch(/no policy after step 2/);
    // A step whose groups were all dropped (no spread) hands over an empty batch: the step advances,
    // the parameters stay, and the next step builds on it.
    const empty = await post('/sim/update?step=2&run=a', '');
    expect(empty.status, await empty.clone().text()).toBe(200);
    expect(await empty.json()).toMatchObject({ step: 2, examples: 0, groups: 0 });
    expect(server.policy.step).toBe(2);
    expect(server.policy.config.theta).toEqual(learned.config.theta);
    expect((await post('/sim/update?step=3&run=a', asStep(3, lines.slice(0, 4)))).status).toBe(200);
    expect(server.policy.step).toBe(3);
  });

  it('keeps its parameters in its folder at every update, and a server started on the folder continues from them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'served-sim-state-'));
    const world = await SimulatedModelWorld.open(served, pool, h0);
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const task = tasks[3];
    if (!task) throw new Error('no task');
    const lines: string[] = [];
    for (const attempt of [0, 1, 2, 3]) {
      const trajectory = await runAttempt({
        environment,
        task,
        harness: h0,
        policy: initial,
        runId: 'p',
        attempt,
        seed: attempt,
      });
      const advantage = trajectory.evaluation?.success ? 1 : -1;
      lines.push(
        JSON.stringify(
          trainingExample(trajectory, {
            groupId: `1:${task.id}`,
            step: 1,
            context: 'h0',
            messages: trajectory.messages,
            advantage,
          }),
        ),
      );
    }
    const first = await startSimulatedModelServer({ world, policy: initial, dir });
    // One server writes a folder: another process's server holding it (its lock) refuses this one.
    const held = await mkdtemp(join(tmpdir(), 'served-sim-held-'));
    await writeFile(
      join(held, runLockFile),
      JSON.stringify({ pid: process.ppid, host: hostname(), since: new Date().toISOString() }),
    );
    await expect(startSimulatedModelServer({ world, policy: initial, dir: held })).rejects.toThrow(
      `${held} is being written by another process (pid ${process.ppid}`,
    );
    expect(await readdir(held)).toEqual([runLockFile]);
    // One whose port is taken makes no folder.
    const elsewhere = join(dir, 'never-made');
    await expect(
      startSimulatedModelServer({ world, policy: initial, dir: elsewhere, port: Number(new URL(first.url).port) }),
    ).rejects.toThrow(/EADDRINUSE/);
    expect(existsSync(elsewhere)).toBe(false);
    const update = (url: string, step: number) =>
      fetch(`${url}/sim/update?step=${step}`, {
        method: 'POST',
        body: lines.map((line) => JSON.stringify({ ...JSON.parse(line), step })).join('\n'),
      });
    expect((await update(first.url, 1)).status).toBe(200);
    expect((await update(first.url, 2)).status).toBe(200);
    expect((await update(first.url, 2)).status).toBe(200);
    const learned = first.policy.config;
    await first.close();
    expect((await readdir(join(dir, 'checkpoints'))).sort()).toEqual([
      'policy-step-0.json',
      'policy-step-1.json',
      'policy-step-2.json',
    ]);
    // What eval --checkpoint reads.
    expect((await trainedPolicy(join(dir, 'checkpoints', 'policy-step-2.json'))).config).toEqual(learned);

    const second = await startSimulatedModelServer({ world, policy: new SimulatedPolicy(), dir });
    try {
      expect(second.policy.step).toBe(2);
      expect(second.policy.config).toEqual(learned);
      expect(second.updates.map((item) => item.step)).toEqual([1, 2]);
      // Step 1 handed over again replaces it, and the snapshot of step 2 goes with it.
      expect((await update(second.url, 1)).status).toBe(200);
      expect((await readdir(join(dir, 'checkpoints'))).sort()).toEqual(['policy-step-0.json', 'policy-step-1.json']);
    } finally {
      await second.close();
    }
  });

  it('refuses what it cannot read, naming it', async () => {
    const unknownTask = await post(
      '/chat/completions',
      JSON.stringify({
        model: 'sim',
        messages: [
          { role: 'system', content: h0.spec.prompt.system },
          { role: 'user', content: 'Write me a poem.' },
        ],
      }),
    );
    expect(unknownTask.status).toBe(400);
    expect(((await unknownTask.json()) as { error: { message: string } }).error.message).toMatch(
      /poses none of them: "Write me a poem/,
    );
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    const strange = await post(
      '/chat/completions',
      JSON.stringify({
        model: 'sim',
        messages: [
          { role: 'system', content: 'You are a pirate.' },
          { role: 'user', content: tasks[0]?.instruction },
        ],
      }),
    );
    expect(strange.status).toBe(400);
    expect(((await strange.json()) as { error: { message: string } }).error.message).toMatch(
      /none renders this system prompt/,
    );
    const badLine = await post('/sim/update?step=1', '{"groupId": "1:x"}\nnot json');
    expect(badLine.status).toBe(400);
    expect(((await badLine.json()) as { error: { message: string } }).error.message).toMatch(/^batch line 1: taskId/);
    expect((await post('/sim/update?step=zero', '')).status).toBe(400);
    // An attempt rendered under another base harness than the server's H0 is refused by line.
    const text = createHarness(dbbenchH0('dbbench-text'));
    const task = tasks[0];
    if (!task) throw new Error('no task');
    const foreign = await runAttempt({
      environment,
      task,
      harness: text,
      policy: initial,
      runId: 'x',
      attempt: 0,
      seed: 1,
    });
    const line = trainingExample(foreign, {
      groupId: '1:x',
      step: 1,
      context: 'h0',
      messages: foreign.messages,
      advantage: 1,
    });
    const refused = await post('/sim/update?step=1', JSON.stringify(line));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^batch line 1 \(1:x\): its system prompt is not the one h0 renders .*--base/,
    );
  });
});
