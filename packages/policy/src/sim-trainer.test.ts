import type { Decision, ScoredGroup, Task, Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { hardnessClass, SimulatedPolicy, sigmoid } from './sim-policy.js';
import { SimulatedGrpoTrainer } from './sim-trainer.js';

/** A group of one trajectory whose single turn made these decisions. */
function group(decisions: Decision[], advantage: number, context: 'variant' | 'h0' = 'variant'): ScoredGroup {
  const trajectory = { turns: [{ decisions }] } as unknown as Trajectory;
  const task = { id: 't' } as Task;
  return { groupId: 'g', taskId: 't', task, trajectories: [{ trajectory, advantage, context, messages: [] }] };
}

const start = () => new SimulatedPolicy({ theta: { s: 0 }, hardTheta: {} });

describe('SimulatedGrpoTrainer', () => {
  it('moves theta by learning rate x advantage x (1 - p) for a right choice', async () => {
    const trainer = new SimulatedGrpoTrainer(start(), { learningRate: 2 });
    await trainer.update([group([{ skill: 's', right: true, probability: 0.25, cue: 0 }], 1)], 1);
    expect(trainer.policy.config.theta['s']).toBeCloseTo(2 * 0.75);
  });

  it('reports the parameters its update moved, not every skill the settings name', async () => {
    const trainer = new SimulatedGrpoTrainer(
      new SimulatedPolicy({ theta: { s: 0, 'other-env-skill': 1 }, hardTheta: { 'other-env-skill@3': 1 } }),
    );
    const { stats } = await trainer.update(
      [group([{ skill: 's', right: true, probability: 0.5, cue: 0, hardness: 3 }], 1)],
      1,
    );
    expect(Object.keys(stats ?? {}).sort()).toEqual(['hardTheta.s@3', 'theta.s', 'trajectories', 'updateNorm']);
    expect(stats?.['theta.s']).toBe(trainer.policy.config.theta['s']);
    expect(stats?.['hardTheta.s@3']).toBe(trainer.policy.config.hardTheta['s@3']);
  });

  it('learns nothing from a choice the harness made, unless the trajectory is re-rendered under H0', async () => {
    const byHarness: Decision = { skill: 's', right: true, probability: 1, cue: 0, byHarness: true };
    const asRendered = new SimulatedGrpoTrainer(start());
    await asRendered.update([group([byHarness], 1, 'variant')], 1);
    expect(asRendered.policy.config.theta['s']).toBe(0);

    const underH0 = new SimulatedGrpoTrainer(start());
    await underH0.update([group([byHarness], 1, 'h0')], 1);
    // Under H0 the policy itself would have chosen with p = sigmoid(theta) = 0.5.
    expect(underH0.policy.config.theta['s']).toBeCloseTo(0.5);
  });

  it('teaches a hardness class only through decisions of that class', async () => {
    const trainer = new SimulatedGrpoTrainer(start(), { learningRate: 1, hardLearningRate: 4 });
    await trainer.update(
      [
        group(
          [
            { skill: 's', right: true, probability: 0.1, cue: 0, hardness: 3 },
            { skill: 's', right: true, probability: 0.5, cue: 0 },
          ],
          1,
        ),
      ],
      1,
    );
    const { hardTheta, theta } = trainer.policy.config;
    expect(hardTheta[hardnessClass('s', 3)]).toBeCloseTo(4 * 0.9);
    expect(hardTheta[hardnessClass('s', 8)]).toBeUndefined();
    expect(theta['s']).toBeCloseTo(0.9 + 0.5);
    // The learned part offsets that class's hardness, never beyond it.
    expect(trainer.policy.remainingHardness('s', 3)).toBe(0);
    expect(trainer.policy.remainingHardness('s', 8)).toBe(8);
  });

  it('scores a re-rendered hard choice by the H0 probability with what is left of its hardness', async () => {
    const policy = new SimulatedPolicy({ theta: { s: 1 }, hardTheta: { [hardnessClass('s', 4)]: 1 } });
    const trainer = new SimulatedGrpoTrainer(policy);
    // Drawn under a variant's cue with p = 0.6; under H0 it had p = sigmoid(1 - (4 - 1)).
    await trainer.update([group([{ skill: 's', right: true, probability: 0.6, cue: 4, hardness: 4 }], 1, 'h0')], 1);
    expect(trainer.policy.config.theta['s']).toBeCloseTo(1 + (1 - sigmoid(-2)));
  });

  it('restores a checkpoint written before hard classes existed', () => {
    const trainer = new SimulatedGrpoTrainer(start());
    const state = trainer.state() as { config: Record<string, unknown> };
    const { hardTheta: _dropped, ...older } = state.config;
    trainer.restore({ ...state, config: older });
    expect(trainer.policy.config.hardTheta).toEqual({});
  });
});
