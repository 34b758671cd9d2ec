import { evaluate, type HarnessSpec, runAttempt } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { createOraclePolicy } from './oracle-policy.js';
import { actionFormatSkill, SimulatedPolicy, sigmoid } from './sim-policy.js';

const { environment } = createCounterEnvironment();
const task = { id: 'count-2', env: 'counter', split: 'dev', instruction: 'Make it 2.', tags: [], target: 2 };

async function attempt(policy: SimulatedPolicy, seed: number, harness = createPlainHarness()) {
  return runAttempt({ environment, task, harness, policy, runId: 't', attempt: 0, seed });
}

/** A harness whose prompt carries a directive for the `count` skill. */
function cuedHarness() {
  const harness = createPlainHarness();
  const spec: HarnessSpec = {
    ...harness.spec,
    prompt: {
      ...harness.spec.prompt,
      directives: [{ id: 'c', text: 'Add exactly the target.', direction: 'precision', skill: 'count' }],
    },
  };
  return {
    ...harness,
    spec,
    start: (item: typeof task) => [
      { role: 'system' as const, content: `${spec.prompt.system}\nRules:\n- Add exactly the target.` },
      { role: 'user' as const, content: item.instruction },
    ],
  };
}

describe('SimulatedPolicy', () => {
  it('follows the plan through the codec and records each decision with its probability', async () => {
    const policy = new SimulatedPolicy({ theta: { count: 0 }, actionFormatTheta: 50 });
    const trajectory = await attempt(policy, 1);
    const decisions = trajectory.turns.flatMap((turn) => turn.decisions ?? []);
    const count = decisions.find((decision) => decision.skill === 'count');
    expect(count?.probability).toBeCloseTo(0.5, 12);
    expect(decisions.filter((decision) => decision.skill === actionFormatSkill)).toHaveLength(trajectory.turns.length);
    // The right branch adds the target and solves the task; the wrong one adds one too many.
    expect(trajectory.evaluation?.success).toBe(count?.right);
    expect(trajectory.turns[0]?.response.toolCalls?.[0]?.name).toBe('add');
  });

  it('is reproducible for a seed and varies across seeds', async () => {
    const policy = new SimulatedPolicy({ theta: { count: 0 } });
    const outcomes = async (seed: number) =>
      (await attempt(policy, seed)).turns.map(
        (turn) => turn.response.content + JSON.stringify(turn.response.toolCalls),
      );
    expect(await outcomes(7)).toEqual(await outcomes(7));
    const results = await Promise.all(Array.from({ length: 40 }, (_, seed) => attempt(policy, seed)));
    const rate = results.filter((result) => result.evaluation?.success).length / results.length;
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.8);
  });

  it('takes a cue from a directive that is in its context, and only then', async () => {
    const policy = new SimulatedPolicy({ theta: { count: -1 }, directiveCue: 2, actionFormatTheta: 50 });
    const plain = await attempt(policy, 3);
    const cued = await attempt(policy, 3, cuedHarness());
    const probability = (trajectory: typeof plain) =>
      trajectory.turns.flatMap((turn) => turn.decisions ?? []).find((decision) => decision.skill === 'count')
        ?.probability;
    expect(probability(plain)).toBeCloseTo(sigmoid(-1), 12);
    expect(probability(cued)).toBeCloseTo(sigmoid(1), 12);
  });

  it('sometimes writes a turn with no action, which the codec reports', async () => {
    const policy = new SimulatedPolicy({ theta: { count: 5 }, actionFormatTheta: 0 });
    const trajectories = await Promise.all(Array.from({ length: 20 }, (_, seed) => attempt(policy, seed)));
    const formatErrors = trajectories
      .flatMap((trajectory) => trajectory.turns)
      .filter((turn) => turn.formatError).length;
    expect(formatErrors).toBeGreaterThan(5);
  });

  it('rejects a bad configuration with the field', () => {
    expect(() => new SimulatedPolicy({ directiveCue: Number.NaN })).toThrow(/directiveCue/);
  });

  it('scores below the oracle, which solves everything', async () => {
    const taskSet = await environment.loadTasks({});
    const base = {
      environment,
      taskSet,
      split: 'dev',
      harness: createPlainHarness(),
      k: 4,
      seed: 1,
      concurrency: 2,
      runId: 'r',
    };
    const oracle = await evaluate({ ...base, policy: createOraclePolicy() });
    const sim = await evaluate({ ...base, policy: new SimulatedPolicy({ theta: { count: 0 } }) });
    expect(oracle.summary.avgAtK).toBe(1);
    expect(sim.summary.avgAtK).toBeLessThan(1);
  });
});
