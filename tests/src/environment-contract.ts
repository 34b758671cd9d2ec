import {
  type Action,
  type Environment,
  type Episode,
  Evaluation,
  formatZodError,
  type Harness,
  PlanNode,
  planSkills,
  rightPath,
  type Task,
  ToolSpec,
} from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What is wrong with an evaluation ('' when nothing): the schema's words, field by field. */
export function evaluationProblem(value: unknown): string {
  const parsed = Evaluation.safeParse(value);
  return parsed.success ? '' : formatZodError(parsed.error);
}

/** The decision points whose wrong branch does the same actions as the right one: no mistake at all. */
export function harmlessMistakes(nodes: readonly PlanNode[]): string[] {
  const found: string[] = [];
  const visit = (list: readonly PlanNode[]): void => {
    for (const node of list) {
      if (node.kind !== 'decide') continue;
      if (JSON.stringify(rightPath(node.right)) === JSON.stringify(rightPath(node.wrong))) found.push(node.skill);
      visit(node.right);
      visit(node.wrong);
    }
  };
  visit(nodes);
  return found;
}

export interface EnvironmentContractOptions<T extends Task> {
  /** Shown in the test names. */
  name: string;
  /** Creates the environment under test; it must allow at least two open episodes at once. */
  create: () => Environment<T> | Promise<Environment<T>>;
  /** Which tasks to use (default: the environment's first split). */
  source?: { split?: string; file?: string };
  /** How many tasks the oracle and the do-nothing checks run on (default: all). */
  sample?: number;
  /** Resources the environment holds for open episodes (connections, schemas, containers), if it can count them. */
  resourcesInUse?: (environment: Environment<T>) => Promise<number>;
  /** Test timeout for the whole-split checks. */
  timeoutMs?: number;
  /**
   * The environment's harnesses (its H0 at least): each one's codec must decode what it encodes, for
   * every action of the oracle plans, since the simulated, oracle and empty policies speak through it.
   */
  harnesses?: () => readonly Harness[] | Promise<readonly Harness[]>;
}

/**
 * The actions of a plan a codec does not give back as they went in (`decode(encode([action]))`),
 * described; [] when it round-trips them all.
 */
export function codecMismatches(harness: Harness, actions: readonly Action[], tools: readonly ToolSpec[]): string[] {
  const found: string[] = [];
  for (const action of actions) {
    const decoded = harness.codec.decode(harness.codec.encode([action]), tools);
    const back = decoded.ok ? decoded.actions.map((item) => item.action) : [];
    if (JSON.stringify(back) !== JSON.stringify([action]))
      found.push(
        `${harness.spec.id}: ${JSON.stringify(action).slice(0, 120)} came back as ${decoded.ok ? JSON.stringify(back).slice(0, 120) : `an error (${decoded.error})`}`,
      );
  }
  return found;
}

/**
 * The contract every environment package runs against itself: loading, opening, stepping, bad
 * actions as observations, evaluation, closing that always releases, an oracle that solves every
 * task, doing nothing that solves none, plans that end their episode and name only the
 * environment's skills, and concurrent episodes that cannot see each other.
 */
export function defineEnvironmentContract<T extends Task>(options: EnvironmentContractOptions<T>): void {
  describe(`environment contract: ${options.name}`, () => {
    let environment: Environment<T>;
    let tasks: T[] = [];
    const sample = () => tasks.slice(0, options.sample ?? tasks.length);
    const timeout = options.timeoutMs ?? 120_000;

    beforeAll(async () => {
      environment = await options.create();
      const source = options.source ?? { split: environment.splits[0] ?? 'dev' };
      ({ tasks } = await environment.loadTasks(source));
    }, timeout);
    afterAll(async () => {
      await environment?.close();
    });

    const withEpisode = async <R>(task: T, body: (episode: Episode<T>) => Promise<R>): Promise<R> => {
      const episode = await environment.open(task);
      try {
        return await body(episode);
      } finally {
        await episode.close();
      }
    };

    it('loads tasks with unique ids that belong to the environment', () => {
      expect(tasks.length).toBeGreaterThan(0);
      const seen = new Set<string>();
      const repeated = tasks.filter((task) => seen.has(task.id) || !seen.add(task.id)).map((task) => task.id);
      expect(repeated, 'task ids that occur more than once').toEqual([]);
      expect(
        tasks.filter((task) => task.env !== environment.id).map((task) => `${task.id}: env '${task.env}'`),
        `tasks whose env is not '${environment.id}'`,
      ).toEqual([]);
      expect(environment.skills.length).toBeGreaterThan(0);
    });

    it('opens an episode that offers tools with JSON-schema parameters', async () => {
      const first = tasks[0] as T;
      await withEpisode(first, async (episode) => {
        expect(episode.task.id).toBe(first.id);
        expect(episode.tools.length).toBeGreaterThan(0);
        for (const tool of episode.tools) {
          expect(ToolSpec.safeParse(tool).success).toBe(true);
          expect(tool.parameters['type']).toBe('object');
        }
      });
    });

    it('answers an unknown tool and bad arguments with observations, not crashes', async () => {
      await withEpisode(tasks[0] as T, async (episode) => {
        const unknown = await episode.step({ tool: 'no_such_tool_xyz', arguments: {} });
        expect(unknown.done).toBe(false);
        expect(unknown.error).toBeDefined();
        expect(unknown.observation.length).toBeGreaterThan(0);
        for (const tool of episode.tools) {
          const result = await episode.step({ tool: tool.name, arguments: { unexpected: { deeply: ['nested'] } } });
          expect(typeof result.observation).toBe('string');
          if (result.done) break;
        }
        // The episode still evaluates after bad actions.
        expect(evaluationProblem(await episode.evaluate()), 'evaluate() after bad actions').toBe('');
      });
    });

    it(
      'solves every task by its oracle plan, and no task by doing nothing or by its empty plan; both plans end the episode',
      async () => {
        const unsolved: string[] = [];
        const solvedByNothing: string[] = [];
        // A plan must end its episode (else a policy following it has no action left to take), and
        // its decision points must name the environment's skills (what evolution and profiles know).
        const unended: string[] = [];
        const unknownSkills = new Set<string>();
        const malformed: string[] = [];
        const badEvaluations: string[] = [];
        const noMistake: string[] = [];
        const known = new Set(environment.skills.map((skill) => skill.name));
        // The first action the episode answered with an error, for the reason an oracle failed.
        let firstError = '';
        const run = async (episode: Episode<T>, plan: readonly Action[], label: string) => {
          let ended = false;
          firstError = '';
          for (const action of plan) {
            const result = await episode.step(action);
            if (result.error && !firstError) firstError = `${action.tool}: ${result.error.message}`;
            ended = result.done;
            if (ended) break;
          }
          if (!ended) unended.push(label);
          return episode.evaluate();
        };
        for (const task of sample()) {
          const plan = environment.oraclePlan(task);
          const shape = PlanNode.array().safeParse(plan.nodes);
          if (!shape.success) {
            malformed.push(`${task.id}: ${formatZodError(shape.error)}`);
            continue;
          }
          for (const skill of harmlessMistakes(plan.nodes)) noMistake.push(`${task.id}: ${skill}`);
          for (const skill of planSkills(plan.nodes)) if (!known.has(skill)) unknownSkills.add(`${task.id}: ${skill}`);
          const actions: Action[] = rightPath(plan.nodes);
          const oracle = await withEpisode(task, (episode) => run(episode, actions, task.id));
          const problem = evaluationProblem(oracle);
          if (problem) badEvaluations.push(`${task.id}: ${problem}`);
          if (!oracle.success || oracle.reward !== 1) {
            const failed = oracle.checks?.find((check) => !check.passed);
            const why =
              firstError || (failed ? `check ${failed.name} failed${failed.detail ? `: ${failed.detail}` : ''}` : '');
            unsolved.push(why ? `${task.id} (${why.slice(0, 160)})` : task.id);
          }
          const nothing = await withEpisode(task, (episode) => episode.evaluate());
          if (nothing.success || nothing.reward !== 0) solvedByNothing.push(task.id);
          const empty = await withEpisode(task, (episode) =>
            run(episode, rightPath(environment.emptyPlan(task).nodes), `${task.id} (empty plan)`),
          );
          if (empty.success || empty.reward !== 0) solvedByNothing.push(`${task.id} (empty plan)`);
        }
        expect(malformed, 'oracle plans that are not plans').toEqual([]);
        expect(badEvaluations, 'evaluations that break the Evaluation schema').toEqual([]);
        expect(noMistake, 'decision points whose wrong branch does what the right one does').toEqual([]);
        expect(
          unsolved,
          'tasks the oracle plan does not solve (the first action the episode refused, or a failed check)',
        ).toEqual([]);
        expect(solvedByNothing).toEqual([]);
        expect(unended, 'plans whose actions never end the episode').toEqual([]);
        expect([...unknownSkills], 'decision points naming skills the environment does not list').toEqual([]);
      },
      timeout,
    );

    // Only where the harnesses are given: an environment package of this repository has its codecs'
    // round trips tested in harness-dsh.
    if (options.harnesses)
      it("round-trips every oracle action through each harness's codec", async () => {
        const harnesses = (await options.harnesses?.()) ?? [];
        expect(harnesses.length).toBeGreaterThan(0);
        const mismatches: string[] = [];
        for (const task of sample()) {
          // Each task's own tools: an environment may offer different ones per task.
          const tools = await withEpisode(task, async (episode) => episode.tools);
          const actions = rightPath(environment.oraclePlan(task).nodes);
          for (const harness of harnesses) mismatches.push(...codecMismatches(harness, actions, tools));
        }
        expect(mismatches.slice(0, 10), 'oracle actions a codec does not decode as it encoded them').toEqual([]);
      });

    it('keeps concurrent episodes of one task apart', async () => {
      const task = tasks[0] as T;
      const actions = rightPath(environment.oraclePlan(task).nodes);
      const [solver, bystander] = await Promise.all([environment.open(task), environment.open(task)]);
      try {
        for (const action of actions) if ((await solver.step(action)).done) break;
        expect((await solver.evaluate()).success).toBe(true);
        expect((await bystander.evaluate()).success).toBe(false);
      } finally {
        await Promise.all([solver.close(), bystander.close()]);
      }
    });

    it('releases everything on close, even twice, even after a failed step', async () => {
      const before = options.resourcesInUse ? await options.resourcesInUse(environment) : 0;
      const episode = await environment.open(tasks[0] as T);
      await episode.step({ tool: 'no_such_tool_xyz', arguments: {} });
      await episode.close();
      await episode.close();
      if (options.resourcesInUse) expect(await options.resourcesInUse(environment)).toBe(before);
      // Many open/close cycles do not exhaust the environment.
      for (let i = 0; i < 20; i += 1) await withEpisode(tasks[i % tasks.length] as T, async () => undefined);
    });
  });
}
