import {
  type AssistantMessage,
  type Decision,
  type Environment,
  type Harness,
  type HarnessSpec,
  rerenderTrajectory,
  runAttempt,
  type Task,
  type ToolSpec,
} from '@harness-s/core';
import { createAppWorldEnvironment } from '@harness-s/env-appworld';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import {
  appworldH0,
  createHarness,
  dbbenchH0,
  deriveVariant,
  environmentExtras,
  proposeChanges,
} from '@harness-s/harness-dsh';
import { SimulatedPolicy } from '@harness-s/policy';
import { describe, expect, it } from 'vitest';

/** H0 and every change the library proposes for each of the environment's skills: directives, tools, rules, context. */
function harnesses(environment: Environment, h0: HarnessSpec): Harness[] {
  const context = { skills: environment.skills, extras: environmentExtras(environment.id) };
  const variants = environment.skills.flatMap(({ name }) =>
    proposeChanges(h0, { name, skills: [name], causes: [], tasks: [] }, context).map((change) =>
      createHarness(deriveVariant(h0, h0, change)),
    ),
  );
  return [createHarness(h0), ...variants];
}

/**
 * The draws a transcript shows: after the retry message a wrong draw followed by a right one
 * leaves only the right one in view.
 */
function visible(decisions: readonly Decision[]): Decision[] {
  return decisions.filter((decision, index) => {
    const next = decisions[index + 1];
    return !(!decision.right && next?.right && next.skill === decision.skill && !next.byHarness);
  });
}

/**
 * The policy's choices as H0's rendering shows them: without the per-turn format draws (a prelude
 * turn re-rendered under H0 adds one), and with a retried wrong choice once (H0 has no retry message).
 */
const choices = (decisions: readonly Decision[]) =>
  visible(decisions.filter((decision) => decision.skill !== 'action-format'))
    .map((decision) => `${decision.skill}@${decision.hardness ?? 0}:${decision.right}`)
    .filter((choice, index, all) => !(choice.endsWith(':false') && all[index - 1] === choice));

describe.each([
  {
    name: 'DBBench',
    open: (): Environment => createDbbenchEnvironment() as Environment,
    h0: dbbenchH0(),
    split: 'dev',
    tasks: 40,
  },
  {
    // AgentBench's text protocol holds one action per reply: an expanded turn is re-rendered as several.
    name: 'DBBench under its text protocol',
    open: (): Environment => createDbbenchEnvironment() as Environment,
    h0: dbbenchH0('dbbench-text'),
    split: 'dev',
    tasks: 40,
  },
  {
    name: 'AppWorld',
    open: (): Environment => createAppWorldEnvironment() as Environment,
    h0: appworldH0(),
    split: 'train',
    tasks: 24,
  },
])('SimulatedPolicy.follow (teacher forcing) on $name', ({ name, open, h0: h0Spec, split, tasks: count }) => {
  it('recovers the decisions of sampled episodes from their messages alone, as rendered and under H0', async () => {
    const environment = open();
    try {
      const { tasks } = await environment.loadTasks({ split });
      // An error-prone policy, so that wrong branches, format errors and retries all occur.
      const policy = new SimulatedPolicy({ theta: {}, defaultTheta: 0, actionFormatTheta: 1.5 });
      const all = harnesses(environment, h0Spec);
      const h0 = all[0] as Harness;
      expect(all.length).toBeGreaterThan(8);
      let turns = 0;
      let wrong = 0;
      let byHarness = 0;
      let rerendered = 0;
      let rewritten = 0;
      for (const [index, task] of tasks.slice(0, count).entries()) {
        const harness = all[index % all.length] as Harness;
        for (const seed of [1, 2]) {
          const trajectory = await runAttempt({ environment, task, harness, policy, runId: 'f', attempt: seed, seed });
          const sampled = trajectory.turns
            .filter((turn) => turn.origin !== 'harness')
            .map((turn) => turn.decisions ?? []);
          const context = {
            task,
            harness,
            envTools: trajectory.tools ?? [],
            seed: 0,
            plan: environment.oraclePlan(task),
          };
          const where = `${task.id} under ${harness.spec.id}, seed ${seed}`;
          expect(policy.follow(context, trajectory.messages).map(visible), where).toEqual(sampled.map(visible));
          // Re-rendered under H0, the choices a tool transform made read as the policy's own, and a
          // call it rewrote (list-paging's) as the variant ran it.
          const rerender = rerenderTrajectory(trajectory, task, h0);
          for (const message of rerender)
            if (message.role === 'assistant')
              expect(h0.codec.decode(message, context.envTools).ok, `${where}: ${message.content}`).toBe(true);
          const underH0 = policy.follow(
            { ...context, harness: h0 },
            rerender,
            harness === h0 ? {} : { rerenderedFrom: harness },
          );
          expect(choices(underH0.flat()), `${where}, re-rendered under H0`).toEqual(choices(sampled.flat()));
          rerendered += 1;
          rewritten += harness.spec.tools.some((tool) => tool.kind === 'list-paging') ? 1 : 0;
          turns += sampled.length;
          wrong += sampled.flat().filter((decision) => !decision.right).length;
          byHarness += sampled.flat().filter((decision) => decision.byHarness).length;
        }
      }
      expect(rerendered).toBe(count * 2);
      if (name === 'AppWorld') expect(rewritten).toBeGreaterThan(0);
      expect(turns).toBeGreaterThan(100);
      expect(wrong).toBeGreaterThan(20);
      expect(byHarness).toBeGreaterThan(0);
    } finally {
      await environment.close();
    }
  });
});

/**
 * Each task's attempt under H0 with its first reply forged by `forge`: refused as written, passed
 * over when the transcript is said to be re-rendered from a variant's attempt.
 */
async function expectForgedFirstReplyRefused(
  environment: Environment,
  h0: Harness,
  tasks: readonly Task[],
  forge: (reply: AssistantMessage, envTools: readonly ToolSpec[]) => AssistantMessage | undefined,
): Promise<void> {
  const policy = new SimulatedPolicy();
  let checked = 0;
  for (const task of tasks) {
    const trajectory = await runAttempt({ environment, task, harness: h0, policy, runId: 'f', attempt: 0, seed: 1 });
    const envTools = trajectory.tools ?? [];
    const context = { task, harness: h0, envTools, seed: 0, plan: environment.oraclePlan(task) };
    const first = trajectory.messages.findIndex((message) => message.role === 'assistant');
    const reply = forge(trajectory.messages[first] as AssistantMessage, envTools);
    if (!reply) continue;
    const forged = trajectory.messages.map((message, index) => (index === first ? reply : message));
    expect(policy.follow(context, trajectory.messages).flat().length, task.id).toBeGreaterThan(0);
    expect(() => policy.follow(context, forged), task.id).toThrow(/no branches of the oracle plan lead to turn 1/);
    // Re-rendered from a variant's attempt, what the plan lacks may be what the variant's tool added.
    expect(() => policy.follow(context, forged, { rerenderedFrom: h0 }), task.id).not.toThrow();
    checked += 1;
  }
  expect(checked).toBe(tasks.length);
}

describe('SimulatedPolicy.follow of what the plan does not have', () => {
  it('refuses a reply under a protocol of one action per reply, unless the transcript is a re-rendered one', async () => {
    const environment = createDbbenchEnvironment() as Environment;
    try {
      const { tasks } = await environment.loadTasks({ split: 'dev' });
      const h0 = createHarness(dbbenchH0('dbbench-text'));
      await expectForgedFirstReplyRefused(environment, h0, tasks.slice(0, 10), () =>
        h0.codec.encode([{ tool: 'execute_sql', arguments: { query: 'SELECT 424242' } }]),
      );
    } finally {
      await environment.close();
    }
  });

  it('refuses code in front of a reply, unless the transcript is a re-rendered one', async () => {
    const environment = createAppWorldEnvironment() as Environment;
    try {
      const { tasks } = await environment.loadTasks({ split: 'train' });
      const h0 = createHarness(appworldH0());
      await expectForgedFirstReplyRefused(environment, h0, tasks.slice(0, 6), (reply, envTools) => {
        const decoded = h0.codec.decode(reply, envTools);
        const [action] = decoded.ok ? decoded.actions : [];
        if (!action) return undefined;
        const code = `print("FORGED")\n\n${String(action.action.arguments['code'])}`;
        return h0.codec.encode([{ ...action.action, arguments: { code } }]);
      });
    } finally {
      await environment.close();
    }
  });
});
