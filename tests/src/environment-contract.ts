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
  type TaskSource,
  ToolSpec,
  type UnloadableTask,
} from '@harness-s/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  actionCount,
  describeDecisions,
  everyDecisionRight,
  everyDecisionWrong,
  noTaskLoaded,
  planWalks,
  repeatedIds,
  walkProblem,
} from './contract-walks.js';

export {
  describeDecisions,
  noTaskLoaded,
  type PlanWalk,
  planWalks,
  repeatedIds,
  walkProblem,
} from './contract-walks.js';

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
  /** How many tasks the oracle, the do-nothing and the wrong-path checks run on (default: all). */
  sample?: number;
  /**
   * How many of the sampled tasks the wrong-path check takes each decision wrong in turn on (a walk
   * per decision point); every sampled task has its walk with every decision wrong. Default: all of
   * them, or none where `sample` is given (an environment whose episodes are slow).
   */
  wrongPathSample?: number;
  /** Resources the environment holds for open episodes (connections, schemas, containers), if it can count them. */
  resourcesInUse?: (environment: Environment<T>) => Promise<number>;
  /** Test timeout for the whole-split checks. */
  timeoutMs?: number;
  /**
   * The environment's harnesses (its H0 at least): each one's codec must decode what it encodes, for
   * every action of the oracle plans, since the simulated, oracle and empty policies speak through it.
   * The right path and every walk of the wrong-path check must also end within their smallest step limit.
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

/** What a check uses of vitest's test context: it is skipped when no task loaded (the first check fails, saying why). */
type SkipContext = { skip: (condition: boolean, note?: string) => void };

/**
 * The contract every environment package runs against itself: loading, opening, stepping, bad
 * actions as observations, evaluation, closing that always releases, an oracle that solves every
 * task, doing nothing that solves none, plans that end their episode and name only the
 * environment's skills, wrong decisions that still end the episode, and concurrent episodes that
 * cannot see each other.
 */
export function defineEnvironmentContract<T extends Task>(options: EnvironmentContractOptions<T>): void {
  describe(`environment contract: ${options.name}`, () => {
    let environment: Environment<T>;
    let source: TaskSource = {};
    let tasks: T[] = [];
    let unloadable: UnloadableTask[] = [];
    const sample = () => tasks.slice(0, options.sample ?? tasks.length);
    const timeout = options.timeoutMs ?? 120_000;
    const needTasks = (context: SkipContext) => context.skip(tasks.length === 0, 'no task loaded');

    beforeAll(async () => {
      environment = await options.create();
      source = options.source ?? { split: environment.splits[0] ?? 'dev' };
      ({ tasks, unloadable } = await environment.loadTasks(source));
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
      if (tasks.length === 0) throw new Error(noTaskLoaded(source, unloadable));
      expect(repeatedIds(tasks.map((task) => task.id)), 'task ids that occur more than once').toEqual([]);
      expect(
        tasks.filter((task) => task.env !== environment.id).map((task) => `${task.id}: env '${task.env}'`),
        `tasks whose env is not '${environment.id}'`,
      ).toEqual([]);
      expect(environment.skills.length, 'skills the environment lists').toBeGreaterThan(0);
    });

    it('opens an episode that offers tools with JSON-schema parameters', async (context) => {
      needTasks(context);
      const first = tasks[0] as T;
      await withEpisode(first, async (episode) => {
        expect(episode.task.id).toBe(first.id);
        expect(episode.tools.length, 'tools the episode offers').toBeGreaterThan(0);
        for (const tool of episode.tools) {
          expect(ToolSpec.safeParse(tool).success, `tool ${tool.name} is a ToolSpec`).toBe(true);
          expect(tool.parameters['type'], `tool ${tool.name}'s parameters' type`).toBe('object');
        }
      });
    });

    it('answers an unknown tool and bad arguments with observations, not crashes', async (context) => {
      needTasks(context);
      const task = tasks[0] as T;
      const crashes: string[] = [];
      // Every tool is probed; one whose bad call ends the episode leaves the rest to a new episode.
      let tools: string[] = [];
      let probed = 0;
      for (let episodes = 0; episodes === 0 || probed < tools.length; episodes += 1) {
        await withEpisode(task, async (episode) => {
          if (episodes === 0) {
            tools = episode.tools.map((tool) => tool.name);
            const unknown = await episode.step({ tool: 'no_such_tool_xyz', arguments: {} });
            expect(unknown.done, 'an unknown tool ends the episode').toBe(false);
            expect(unknown.error, 'the error of an unknown tool').toBeDefined();
            expect(unknown.observation.length, 'the observation of an unknown tool').toBeGreaterThan(0);
          }
          while (probed < tools.length) {
            const tool = tools[probed] as string;
            probed += 1;
            try {
              const result = await episode.step({ tool, arguments: { unexpected: { deeply: ['nested'] } } });
              if (typeof result.observation !== 'string') crashes.push(`${tool}: the observation is not a string`);
              if (result.done) break;
            } catch (error) {
              crashes.push(`${tool}: step threw ${error instanceof Error ? error.message : String(error)}`);
              break;
            }
          }
          // The episode still evaluates after bad actions.
          expect(
            evaluationProblem(await episode.evaluate()),
            `evaluate() after bad actions (episode ${episodes + 1})`,
          ).toBe('');
        });
      }
      expect(crashes, 'tools whose bad arguments were not answered by an observation').toEqual([]);
    });

    it(
      'solves every task by its oracle plan, and no task by doing nothing or by its empty plan; both plans end the episode',
      async (context) => {
        needTasks(context);
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
          if (!ended)
            unended.push(
              `${label}: ${actionCount(plan.length)}${plan.length ? `, the last ${plan.at(-1)?.tool}` : ''}`,
            );
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
          if (nothing.success || nothing.reward !== 0)
            solvedByNothing.push(`${task.id} (no action: reward ${nothing.reward})`);
          const empty = await withEpisode(task, (episode) =>
            run(episode, rightPath(environment.emptyPlan(task).nodes), `${task.id} (empty plan)`),
          );
          if (empty.success || empty.reward !== 0)
            solvedByNothing.push(`${task.id} (empty plan: reward ${empty.reward})`);
        }
        expect(malformed, 'oracle plans that are not plans').toEqual([]);
        // Before the oracle's result: a plan that never ends fails its task for that reason.
        expect(
          unended,
          'plans whose actions run out before the environment says done (oracle plans; empty plans marked as such)',
        ).toEqual([]);
        expect(badEvaluations, 'evaluations that break the Evaluation schema').toEqual([]);
        expect(noMistake, 'decision points whose wrong branch does what the right one does').toEqual([]);
        expect(
          unsolved,
          'tasks the oracle plan does not solve (the first action the episode refused, or a failed check)',
        ).toEqual([]);
        expect(
          solvedByNothing,
          'tasks solved by no action or by their empty plan (both must score reward 0, unsolved)',
        ).toEqual([]);
        expect([...unknownSkills], 'decision points naming skills the environment does not list').toEqual([]);
      },
      timeout,
    );

    it(
      'ends the episode on wrong paths through the oracle plan: every decision wrong, and each wrong in turn',
      async (context) => {
        needTasks(context);
        const harnesses = (await options.harnesses?.()) ?? [];
        const stepLimit = harnesses
          .map((harness) => ({ harness: harness.spec.id, maxSteps: harness.spec.execution.maxSteps }))
          .sort((a, b) => a.maxSteps - b.maxSteps)[0];
        const problems: string[] = [];
        const eachWrong = options.wrongPathSample ?? (options.sample === undefined ? tasks.length : 0);
        for (const [index, task] of sample().entries()) {
          const nodes = environment.oraclePlan(task).nodes;
          // A malformed plan is reported by the oracle check.
          if (!PlanNode.array().safeParse(nodes).success) continue;
          const walks = planWalks(nodes).filter((walk) => {
            // The oracle check reports whether the right path ends; here it only meets the step limit.
            if (walk.name === everyDecisionRight) return stepLimit !== undefined;
            return walk.name === everyDecisionWrong || index < eachWrong;
          });
          for (const walk of walks) {
            const problem = await withEpisode(task, (episode) => walkProblem(episode, walk, stepLimit));
            if (problem) problems.push(`${task.id}, ${walk.name} (${describeDecisions(walk)}): ${problem}`);
          }
        }
        expect(problems, 'walks of the oracle plan that do not end the episode by the environment saying done').toEqual(
          [],
        );
      },
      timeout,
    );

    // Only where the harnesses are given (this repository's environment packages give their base
    // harnesses; harness-dsh tests the codecs on their own too).
    if (options.harnesses)
      it("round-trips every oracle action through each harness's codec", async (context) => {
        needTasks(context);
        const harnesses = (await options.harnesses?.()) ?? [];
        expect(harnesses.length, 'harnesses given').toBeGreaterThan(0);
        const mismatches: string[] = [];
        for (const task of sample()) {
          // Each task's own tools: an environment may offer different ones per task.
          const tools = await withEpisode(task, async (episode) => episode.tools);
          const actions = rightPath(environment.oraclePlan(task).nodes);
          for (const harness of harnesses) mismatches.push(...codecMismatches(harness, actions, tools));
        }
        expect(mismatches.slice(0, 10), 'oracle actions a codec does not decode as it encoded them').toEqual([]);
      });

    it('keeps concurrent episodes of one task apart', async (context) => {
      needTasks(context);
      const task = tasks[0] as T;
      const actions = rightPath(environment.oraclePlan(task).nodes);
      const [solver, bystander] = await Promise.all([environment.open(task), environment.open(task)]);
      try {
        for (const action of actions) if ((await solver.step(action)).done) break;
        const solved = await solver.evaluate();
        const failed = solved.checks?.find((check) => !check.passed);
        expect(
          solved.success,
          `${task.id}: the episode that followed the oracle plan, with a second episode of the task open, should be solved${
            failed ? ` (check ${failed.name} failed${failed.detail ? `: ${failed.detail}` : ''})` : ''
          }`,
        ).toBe(true);
        expect(
          (await bystander.evaluate()).success,
          `${task.id}: the second episode, which did nothing, should be unsolved after the first solved the task (episodes must not share state)`,
        ).toBe(false);
      } finally {
        await Promise.all([solver.close(), bystander.close()]);
      }
    });

    it('releases everything on close, even twice, even after a failed step', async (context) => {
      needTasks(context);
      const before = options.resourcesInUse ? await options.resourcesInUse(environment) : 0;
      const episode = await environment.open(tasks[0] as T);
      await episode.step({ tool: 'no_such_tool_xyz', arguments: {} });
      await episode.close();
      await episode.close();
      if (options.resourcesInUse)
        expect(await options.resourcesInUse(environment), 'resources in use after closing').toBe(before);
      // Many open/close cycles do not exhaust the environment.
      for (let i = 0; i < 20; i += 1) await withEpisode(tasks[i % tasks.length] as T, async () => undefined);
    });
  });
}
