import { describe, expect, it } from 'vitest';
import { runAttempt } from './agent-loop.js';
import { evaluate } from './evaluate.js';
import type { DecodedTurn, Harness } from './harness.js';
import type { AssistantMessage } from './message.js';
import { splitTasks } from './task.js';
import { callTool, createCounterEnvironment, createPlainHarness, createScriptedPolicy } from './testing/index.js';

const task = { id: 'count-2', env: 'counter', split: 'dev', instruction: 'Make it 2.', tags: [], target: 2 };

/** The plain harness with a prelude that adds 1 before the policy's first turn. */
function withPrelude(): Harness {
  const harness = createPlainHarness({ maxSteps: 2 });
  return {
    ...harness,
    prelude: () => ({
      message: {
        role: 'assistant',
        content: 'warming up',
        toolCalls: [{ id: 'h0', name: 'add', arguments: '{"n":1}' }],
      },
      actions: [{ action: { tool: 'add', arguments: { n: 1 } }, callId: 'h0' }],
    }),
  };
}

describe('harness mechanics in the agent loop', () => {
  it('runs a prelude before the first turn, records it as a harness turn, and does not count it as a step', async () => {
    const { environment } = createCounterEnvironment();
    const policy = createScriptedPolicy([callTool('add', { n: 1 }), callTool('submit')]);
    const trajectory = await runAttempt({
      environment,
      task,
      harness: withPrelude(),
      policy,
      runId: 'r',
      attempt: 0,
      seed: 1,
    });
    expect(trajectory.evaluation?.success).toBe(true);
    expect(trajectory.turns.map((turn) => turn.origin ?? 'policy')).toEqual(['harness', 'policy', 'policy']);
    expect(trajectory.turns[0]?.actions[0]?.result.observation).toBe('counter = 1');
    // The policy's first request already shows the prelude and its observation.
    expect(policy.requests[0]?.messages.slice(-2).map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(trajectory.stopReason).toBe('done');
  });

  it('answers harness-local calls without an environment step and does not record them as actions', async () => {
    const { environment } = createCounterEnvironment();
    const plain = createPlainHarness();
    const thinking: Harness = {
      ...plain,
      codec: {
        ...plain.codec,
        decode(message: AssistantMessage): DecodedTurn {
          const decoded = plain.codec.decode(message, []);
          if (!decoded.ok) return decoded;
          return {
            ok: true,
            actions: decoded.actions.map((item) =>
              item.action.tool === 'think' ? { ...item, harnessResult: { observation: 'noted', done: false } } : item,
            ),
          };
        },
      },
    };
    const policy = createScriptedPolicy([
      callTool('think', { thought: 'add two' }),
      callTool('add', { n: 2 }),
      callTool('submit'),
    ]);
    const trajectory = await runAttempt({
      environment,
      task,
      harness: thinking,
      policy,
      runId: 'r',
      attempt: 0,
      seed: 1,
    });
    expect(trajectory.turns.map((turn) => turn.actions.map((item) => item.action.tool))).toEqual([
      [],
      ['add'],
      ['submit'],
    ]);
    expect(trajectory.messages[3]).toMatchObject({ role: 'tool', content: 'noted' });
    expect(trajectory.evaluation?.success).toBe(true);
  });

  it('gives every harness the same attempt seeds with pairedSeeds', async () => {
    const { environment } = createCounterEnvironment();
    const taskSet = await environment.loadTasks({});
    const seeds = async (harness: Harness, pairedSeeds: boolean) => {
      const { trajectories } = await evaluate({
        environment,
        taskSet,
        split: 'dev',
        harness,
        policy: createScriptedPolicy([callTool('submit')]),
        k: 2,
        seed: 5,
        concurrency: 1,
        runId: 'r',
        pairedSeeds,
      });
      return trajectories.map((trajectory) => `${trajectory.taskId}/${trajectory.attempt}:${trajectory.seed}`).sort();
    };
    const other = { ...createPlainHarness(), spec: { ...createPlainHarness().spec, id: 'other' } };
    expect(await seeds(createPlainHarness(), true)).toEqual(await seeds(other, true));
    expect(await seeds(createPlainHarness(), false)).not.toEqual(await seeds(other, false));
  });
});

describe('splitTasks', () => {
  const tasks = Array.from({ length: 41 }, (_, index) => ({ ...task, id: `dev-${index}` }));

  it('cuts exact shares, covers every task once, and keeps input order', () => {
    const splits = splitTasks(tasks, { train: 0.5, validation: 0.25, test: 0.25 }, 3);
    expect([splits.train.length, splits.validation.length, splits.test.length]).toEqual([21, 10, 10]);
    const ids = [...splits.train, ...splits.validation, ...splits.test].map((item) => item.id).sort();
    expect(ids).toEqual(tasks.map((item) => item.id).sort());
    const order = splits.validation.map((item) => Number(item.id.slice(4)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('depends on ids and seed, not on file order', () => {
    const forward = splitTasks(tasks, undefined, 1).validation.map((item) => item.id);
    const backward = splitTasks([...tasks].reverse(), undefined, 1).validation.map((item) => item.id);
    expect([...backward].sort()).toEqual([...forward].sort());
    expect(splitTasks(tasks, undefined, 2).validation.map((item) => item.id)).not.toEqual(forward);
  });

  it('rejects fractions that do not sum to one', () => {
    expect(() => splitTasks(tasks, { train: 0.5, validation: 0.5, test: 0.5 })).toThrow(/must be 1/);
  });
});
