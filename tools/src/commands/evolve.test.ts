import { type HarnessSpec, runAttempt, type Task, type Trajectory } from '@harness-s/core';
import {
  checkTrajectoryCompliance,
  createHarness,
  createLlmAnalyser,
  dbbenchH0,
  deriveVariant,
  environmentExtras,
  type PoolSummary,
  proposeChanges,
  type RepairDirection,
} from '@harness-s/harness-dsh';
import { createOpenAIPolicy, createOraclePolicy, SimulatedPolicy } from '@harness-s/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startChatServer } from '../__fixtures__/chat-server.js';
import { createEnvironment } from '../environments.js';
import { formatPoolSummary } from './evolve.js';

const environment = createEnvironment('dbbench');
let tasks: Task[] = [];
beforeAll(async () => {
  tasks = (await environment.loadTasks({ split: 'dev' })).tasks;
});
afterAll(() => environment.close());

/** H0 with the first change the operator library proposes for each direction, stacked. */
function stacked(...directions: RepairDirection[]): HarnessSpec {
  const h0 = dbbenchH0();
  const context = { skills: environment.skills, extras: environmentExtras('dbbench') };
  return directions.reduce((parent, direction) => {
    const [change] = proposeChanges(parent, direction, context);
    return change ? deriveVariant(h0, parent, change) : parent;
  }, h0);
}
const direction = (name: string, skills: string[]): RepairDirection => ({ name, skills, causes: [], tasks: [] });

/** Runs the trajectory's environment actions again on a fresh episode, as H0 would emit them. */
async function replay(task: Task, trajectory: Trajectory) {
  const episode = await environment.open(task);
  try {
    for (const turn of trajectory.turns) for (const record of turn.actions) await episode.step(record.action);
    return await episode.evaluate();
  } finally {
    await episode.close();
  }
}

describe('variants on DBBench', () => {
  const variant = () =>
    stacked(direction('schema-grounding', ['inspect-table']), direction('write-verification', ['verify-after-write']));

  it('really runs the transforms, and every trajectory replays under H0 with the same result', async () => {
    const harness = createHarness(variant());
    const h0 = createHarness(dbbenchH0());
    const write = tasks.find((task) => task.tags.includes('write')) as Task;
    const oracle = await runAttempt({
      environment,
      task: write,
      harness,
      policy: createOraclePolicy(),
      runId: 't',
      attempt: 0,
      seed: 1,
    });
    expect(oracle.evaluation?.success).toBe(true);
    expect(oracle.turns[0]).toMatchObject({ origin: 'harness', actions: [{ action: { tool: 'execute_sql' } }] });
    expect(String(oracle.turns[0]?.actions[0]?.action.arguments['query'])).toMatch(/^SELECT \* FROM ".*" LIMIT 5$/);
    const writeTurn = oracle.turns.find((turn) =>
      turn.actions.some((record) => /^INSERT|^UPDATE|^DELETE/i.test(String(record.action.arguments['query']))),
    );
    expect(writeTurn?.actions.map((record) => String(record.action.arguments['query']).split(' ')[0])).toEqual([
      expect.stringMatching(/INSERT|UPDATE|DELETE/),
      'SELECT',
    ]);

    const policy = new SimulatedPolicy();
    const envTools = [
      { name: 'execute_sql', description: '', parameters: {} },
      { name: 'commit_final_answer', description: '', parameters: {} },
    ];
    for (const task of [tasks[0], write] as Task[]) {
      const trajectory = await runAttempt({ environment, task, harness, policy, runId: 't', attempt: 0, seed: 3 });
      // The schema lookup took the decision: the simulated policy never decides to inspect, and
      // the decision is recorded as the harness's.
      const decisions = trajectory.turns.flatMap((turn) => turn.decisions ?? []);
      expect(decisions.filter((decision) => !decision.byHarness).map((decision) => decision.skill)).not.toContain(
        'inspect-table',
      );
      expect(decisions.filter((decision) => decision.byHarness).map((decision) => decision.skill)).toContain(
        'inspect-table',
      );
      expect(checkTrajectoryCompliance([trajectory], h0, envTools)).toEqual({ ok: true });
      expect((await replay(task, trajectory)).success).toBe(trajectory.evaluation?.success);
    }
  });

  it('runs under the other harness families, which speak the same environment actions', async () => {
    const task = tasks[0] as Task;
    for (const name of ['minimal', 'codeact']) {
      const { resolveHarness } = await import('@harness-s/harness-dsh');
      const harness = await resolveHarness('dbbench', name);
      expect(harness.spec.family).toBe(name);
      const trajectory = await runAttempt({
        environment,
        task,
        harness,
        policy: createOraclePolicy(),
        runId: 't',
        attempt: 0,
        seed: 1,
      });
      expect(trajectory.evaluation?.success).toBe(true);
      expect(trajectory.turns.flatMap((turn) => turn.actions.map((record) => record.action.tool))).not.toContain(
        'think',
      );
    }
  });
});

describe('the LLM analyser over an OpenAI-compatible endpoint', () => {
  let server: ChatServer;
  const answers: string[] = [];
  beforeAll(async () => {
    server = await startChatServer(() => answers.shift() ?? '');
  });
  afterAll(() => server.close());

  it('uses valid answers and falls back, logged, on invalid ones', async () => {
    const task = tasks[3] as Task;
    const failed = await runAttempt({
      environment,
      task,
      harness: createHarness(dbbenchH0()),
      policy: new SimulatedPolicy({ theta: { 'inspect-table': -20, 'recover-from-error': -20 } }),
      runId: 't',
      attempt: 0,
      seed: 1,
    });
    expect(failed.evaluation?.success).toBe(false);
    const lines: string[] = [];
    const analyser = createLlmAnalyser({
      policy: createOpenAIPolicy({ baseUrl: server.baseUrl, model: 'analyst', maxRetries: 0 }),
      harness: createHarness(dbbenchH0()),
      skills: environment.skills,
      log: (line) => lines.push(line),
    });
    answers.push(
      '{"causes": [{"kind": "guessed-column", "direction": "schema-grounding", "skill": "inspect-table", "evidence": "turn 0"}]}',
      '{"causes": [{"kind": "guessed-column", "skill": "telepathy", "direction": "x", "evidence": "turn 0"}]}',
    );
    const valid = await analyser.analyse(failed, dbbenchH0());
    expect(valid).toMatchObject({
      analyser: 'llm:openai:analyst',
      causes: [{ kind: 'guessed-column', skill: 'inspect-table' }],
    });
    const invalid = await analyser.analyse(failed, dbbenchH0());
    expect(invalid.analyser).toBe('built-in (fallback)');
    expect(invalid.causes.map((cause) => cause.kind)).toContain('skipped-inspection');
    expect(lines).toEqual([expect.stringMatching(/causes\.0\.skill: must be one of inspect-table/)]);
  });
});

describe('the pool report', () => {
  it('prints every variant against H0 with the coverage, locality and complementarity lines', () => {
    const summary = {
      schemaVersion: 1,
      env: 'dbbench',
      split: 'dev',
      validationTasks: 4,
      k: 3,
      solvedRule: 'majority',
      rounds: 1,
      poolSize: 1,
      rejected: 0,
      h0Coverage: 0.5,
      bestSingleCoverage: 0.75,
      bestSingle: 'v-1',
      jointCoverage: 0.75,
      jointCoverageWithH0: 1,
      variants: [
        {
          id: 'v-1',
          parent: 'h0',
          direction: 'schema-grounding',
          round: 1,
          coverage: 0.75,
          avgAtK: 0.5,
          helps: ['a', 'b'],
          hurts: ['c'],
          unique: [],
        },
      ],
      locality: { help: 1, hurt: 1, helpAndHurt: 1 },
      complementarity: { distinctSolvedSets: 1, mutuallyComplementaryPairs: 0, pairs: [] },
    } satisfies PoolSummary;
    const text = formatPoolSummary(summary);
    expect(text).toMatch(/v-1\s+1\s+schema-grounding\s+75\.00%\s+50\.00%\s+2\s+1\s+0/);
    expect(text).toContain('H0 coverage          50.00% (2/4)');
    expect(text).toContain('joint coverage       75.00% (3/4); with H0 100.00%');
    expect(text).toContain('1 variants both fix tasks H0 fails and break tasks H0 solves');
  });
});
