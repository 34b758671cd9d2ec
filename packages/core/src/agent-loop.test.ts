import { describe, expect, it } from 'vitest';
import { runAttempt } from './agent-loop.js';
import { InfrastructureError } from './errors.js';
import { evaluate } from './evaluate.js';
import { callTool, createCounterEnvironment, createPlainHarness, createScriptedPolicy } from './testing/index.js';
import { Trajectory } from './trajectory.js';

const request = (overrides: Partial<Parameters<typeof runAttempt>[0]> = {}) => {
  const { environment } = createCounterEnvironment();
  return {
    environment,
    task: {
      id: 'count-2',
      env: 'counter',
      split: 'dev',
      instruction: 'Make the counter equal 2.',
      tags: [],
      target: 2,
    },
    harness: createPlainHarness(),
    policy: createScriptedPolicy([callTool('add', { n: 2 }), callTool('submit')]),
    runId: 'test',
    attempt: 0,
    seed: 1,
    ...overrides,
  };
};

describe('the agent loop', () => {
  it('renders, asks the policy, decodes, steps, evaluates and records everything', async () => {
    const { environment, stats } = createCounterEnvironment();
    const policy = createScriptedPolicy([callTool('add', { n: 2 }), callTool('submit')]);
    const trajectory = await runAttempt(request({ environment, policy }));
    expect(trajectory.stopReason).toBe('done');
    expect(trajectory.evaluation?.success).toBe(true);
    expect(trajectory.turns.map((turn) => turn.actions.map((item) => item.action.tool))).toEqual([['add'], ['submit']]);
    expect(trajectory.turns[0]?.actions[0]?.result.observation).toBe('counter = 2');
    // system, task, assistant, tool, assistant, tool
    expect(trajectory.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(trajectory.usage).toEqual({ promptTokens: 20, completionTokens: 10 });
    expect(trajectory.id).toBe('count-2#plain#0');
    // The second request showed the policy the first observation.
    expect(policy.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: 'counter = 2' });
    expect(stats).toEqual({ opened: 1, closed: 1 });
  });

  it('stops at the step limit and still evaluates and closes', async () => {
    const { environment, stats } = createCounterEnvironment();
    const policy = createScriptedPolicy([callTool('add', { n: 1 })]);
    const trajectory = await runAttempt(request({ environment, policy, harness: createPlainHarness({ maxSteps: 4 }) }));
    expect(trajectory.stopReason).toBe('step-limit');
    expect(trajectory.turns).toHaveLength(4);
    expect(trajectory.evaluation?.success).toBe(false);
    expect(trajectory.evaluation?.checks[0]?.detail).toBe('4 vs 2');
    expect(stats.closed).toBe(1);
  });

  it('answers a format error, and stops after too many in a row', async () => {
    const prose = { role: 'assistant' as const, content: 'thinking...' };
    const recovered = await runAttempt(
      request({ policy: createScriptedPolicy([prose, callTool('add', { n: 2 }), callTool('submit')]) }),
    );
    expect(recovered.stopReason).toBe('done');
    expect(recovered.turns[0]?.formatError).toBe('no tool call');
    expect(recovered.messages[3]).toEqual({ role: 'user', content: 'no tool call' });

    const stuck = await runAttempt(request({ policy: createScriptedPolicy([prose]) }));
    expect(stuck.stopReason).toBe('format-error-limit');
    expect(stuck.turns).toHaveLength(2);
    expect(stuck.evaluation?.success).toBe(false);
  });

  it('records a reply the model cut at its token limit, and its thinking apart from the conversation', async () => {
    const scripted = createScriptedPolicy([{ role: 'assistant', content: 'I will add tw' }]);
    const policy = {
      ...scripted,
      startEpisode: (context: Parameters<typeof scripted.startEpisode>[0]) => {
        const session = scripted.startEpisode(context);
        return {
          respond: async (asked: Parameters<typeof session.respond>[0]) => ({
            ...(await session.respond(asked)),
            cutOff: true,
            reasoning: 'Two, so add tw',
          }),
        };
      },
    };
    const trajectory = await runAttempt(request({ policy }));
    expect(trajectory.turns[0]).toMatchObject({
      cutOff: true,
      reasoning: 'Two, so add tw',
      formatError: 'no tool call',
    });
    expect(JSON.stringify(trajectory.messages)).not.toContain('Two, so add tw');
    expect(Trajectory.parse(JSON.parse(JSON.stringify(trajectory))).turns[0]?.cutOff).toBe(true);
  });

  it('gives a bad action back as an observation, not a crash', async () => {
    const trajectory = await runAttempt(
      request({ policy: createScriptedPolicy([callTool('teleport'), callTool('add', { n: 2 }), callTool('submit')]) }),
    );
    expect(trajectory.turns[0]?.actions[0]?.result.error?.kind).toBe('unknown-tool');
    expect(trajectory.evaluation?.success).toBe(true);
  });

  it('closes the episode when the policy throws', async () => {
    const { environment, stats } = createCounterEnvironment();
    const policy = createScriptedPolicy([
      () => {
        throw new Error('policy bug');
      },
    ]);
    await expect(runAttempt(request({ environment, policy }))).rejects.toThrow('policy bug');
    expect(stats).toEqual({ opened: 1, closed: 1 });
  });

  it("refuses an environment's evaluation outside the schema, naming the environment and the task", async () => {
    const { environment, stats } = createCounterEnvironment();
    const open = environment.open.bind(environment);
    environment.open = async (task, options) => {
      const episode = await open(task, options);
      return Object.assign(episode, { evaluate: async () => ({ reward: 5, success: true, checks: [] }) });
    };
    await expect(runAttempt(request({ environment }))).rejects.toThrow(
      /^environment counter: evaluate\(\) of task count-2 returned no valid evaluation: reward: .*<=1/,
    );
    expect(stats).toEqual({ opened: 1, closed: 1 });
  });

  it('retries infrastructure errors and records them; gives up unscored after the last try', async () => {
    const flaky = createCounterEnvironment({ failOpens: 2 });
    const retried = await runAttempt(request({ environment: flaky.environment }), { maxInfraRetries: 2 });
    expect(retried.evaluation?.success).toBe(true);
    expect(retried.infraErrors.map((error) => error.code)).toEqual(['counter-down', 'counter-down']);

    const down = createCounterEnvironment({ failOpens: 10 });
    const lost = await runAttempt(request({ environment: down.environment }), { maxInfraRetries: 1 });
    expect(lost.stopReason).toBe('infrastructure-error');
    expect(lost.evaluation).toBeNull();
    expect(lost.infraErrors).toHaveLength(2);
  });

  it('treats a policy server outage as infrastructure, not as a policy failure', async () => {
    let calls = 0;
    const policy = createScriptedPolicy([
      () => {
        calls += 1;
        if (calls === 1) throw new InfrastructureError('503 from model server', { code: 'model-server-unavailable' });
        return callTool('add', { n: 2 });
      },
      callTool('submit'),
    ]);
    const trajectory = await runAttempt(request({ policy }));
    expect(trajectory.infraErrors).toHaveLength(1);
    expect(trajectory.evaluation?.success).toBe(true);
  });

  it('rethrows the interrupt when an infrastructure error comes once it was interrupted, recording nothing', async () => {
    // An interrupt closes the attempt's sandbox under it: the error that follows is the interrupt's doing.
    const stop = new AbortController();
    const policy = createScriptedPolicy([
      () => {
        stop.abort(new Error('interrupted by SIGTERM'));
        throw new InfrastructureError('container 1cf4 was removed', { code: 'sandbox-gone' });
      },
    ]);
    await expect(runAttempt({ ...request({ policy }), signal: stop.signal }, { maxInfraRetries: 2 })).rejects.toThrow(
      'interrupted by SIGTERM',
    );
  });
});

describe('evaluate', () => {
  it('runs k attempts per task, summarises them and resumes without rerunning', async () => {
    const { environment, stats } = createCounterEnvironment();
    const taskSet = await environment.loadTasks({});
    // Solves count-1 on every attempt, count-2 never, count-3 never.
    const policy = createScriptedPolicy([callTool('add', { n: 1 }), callTool('submit')]);
    const base = {
      environment,
      taskSet,
      split: 'dev',
      harness: createPlainHarness(),
      policy,
      k: 2,
      seed: 3,
      concurrency: 2,
      runId: 'r',
    };
    const { summary, trajectories } = await evaluate(base);
    expect(trajectories).toHaveLength(6);
    expect(summary).toMatchObject({
      tasks: 3,
      solved: 1,
      passAtK: 1 / 3,
      avgAtK: 1 / 3,
      unsolved: ['count-2', 'count-3'],
    });
    expect(summary.unloadable).toEqual([{ id: 'count-bad', reason: 'a deliberately unloadable record' }]);
    expect(summary.perTask.find((task) => task.id === 'count-1')).toEqual({ id: 'count-1', attempts: 2, successes: 2 });
    expect(stats).toEqual({ opened: 6, closed: 6 });

    const resumed = await evaluate({ ...base, resumeFrom: trajectories.slice(0, 4) });
    expect(stats.opened).toBe(8);
    expect(resumed.summary.passAtK).toBe(summary.passAtK);
  });

  it('runs n >= k attempts per task when asked, and estimates Pass@k from all of them', async () => {
    const { environment } = createCounterEnvironment();
    const taskSet = await environment.loadTasks({});
    const policy = createScriptedPolicy([callTool('add', { n: 1 }), callTool('submit')]);
    const base = { environment, taskSet, split: 'dev', harness: createPlainHarness(), policy, k: 2, seed: 3 };
    const { summary, trajectories } = await evaluate({ ...base, attempts: 5, concurrency: 2, runId: 'n' });
    expect(trajectories).toHaveLength(15);
    expect(summary).toMatchObject({ k: 2, attempts: 5, passAtK: 1 / 3, avgAtK: 1 / 3 });
    expect(summary.perTask.find((task) => task.id === 'count-1')).toEqual({ id: 'count-1', attempts: 5, successes: 5 });
    // n = k is the default, and the summary then says nothing of it.
    expect((await evaluate({ ...base, concurrency: 2, runId: 'k' })).summary.attempts).toBeUndefined();
    await expect(evaluate({ ...base, attempts: 1, concurrency: 2, runId: 'x' })).rejects.toThrow(
      /attempts per task must be an integer of at least k = 2, got 1/,
    );
  });

  it('names an option a caller from JavaScript gets wrong, before any attempt', async () => {
    const { environment, stats } = createCounterEnvironment();
    const taskSet = await environment.loadTasks({});
    const policy = createScriptedPolicy([callTool('submit')]);
    const good = { environment, taskSet, split: 'dev', harness: createPlainHarness(), policy, k: 1, seed: 0 };
    const options = { ...good, concurrency: 1, runId: 'r' };
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ taskSet: taskSet.tasks }, 'evaluate: taskSet must be a TaskSet, { tasks, unloadable }'],
      [{ harness: createPlainHarness().spec }, 'evaluate: harness must be a Harness: createHarness(spec)'],
      [{ policy: undefined }, 'evaluate: policy must be a Policy'],
      [{ environment: undefined }, 'evaluate: environment must be an Environment'],
      [{ k: 0 }, 'evaluate: k must be an integer >= 1, got 0'],
      [{ seed: undefined }, 'evaluate: seed must be an integer, got undefined'],
      [{ concurrency: undefined }, 'evaluate: concurrency must be an integer >= 1, got undefined'],
      [{ runId: '' }, 'evaluate: runId must be a non-empty string'],
      [{ split: undefined }, 'evaluate: split must be a string'],
    ];
    for (const [change, message] of refusals)
      await expect(evaluate({ ...options, ...change } as never)).rejects.toThrow(message);
    expect(stats.opened).toBe(0);
  });
});
