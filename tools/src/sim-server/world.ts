import {
  ConfigError,
  type Environment,
  type EpisodeContext,
  type Harness,
  type Message,
  type Task,
  type ToolSpec,
} from '@harness-s/core';
import { builtInHarnesses, resolveHarness } from '@harness-s/harness-dsh';

/** What the served simulated model reads from a request: the task, the harness, the episode's tools. */
export type Recognised = Omit<EpisodeContext, 'seed'>;

/**
 * What the served simulated model knows of its world: an environment's tasks (every split) with
 * their oracle plans, and the harnesses it may be prompted through (the environment's built-in
 * ones and a pool's variants). A request is matched to a task by the instruction in its first user
 * message and to a harness by its system prompt and the tools it offers, as a model reads them.
 */
export class SimulatedModelWorld {
  private readonly envTools = new Map<string, Promise<readonly ToolSpec[]>>();
  private readonly byId = new Map<string, Harness>();
  private readonly signatureCache = new Map<
    string,
    Promise<Array<{ harness: Harness; system: string | undefined; tools: string }>>
  >();

  private constructor(
    readonly environment: Environment,
    private readonly tasks: readonly Task[],
    readonly harnesses: readonly Harness[],
    /** The base harness: what training examples labelled `h0` are rendered under. */
    readonly h0: Harness,
  ) {
    for (const harness of harnesses) this.byId.set(harness.spec.id, harness);
  }

  static async open(environment: Environment, pool: readonly Harness[], h0: Harness): Promise<SimulatedModelWorld> {
    const tasks: Task[] = [];
    for (const split of environment.splits) tasks.push(...(await environment.loadTasks({ split })).tasks);
    const builtIn = await Promise.all(
      builtInHarnesses(environment.id).map((name) => resolveHarness(environment.id, name)),
    );
    const harnesses = [h0, ...pool, ...builtIn.filter((harness) => harness.spec.id !== h0.spec.id)];
    return new SimulatedModelWorld(environment, tasks, harnesses, h0);
  }

  get taskCount(): number {
    return this.tasks.length;
  }

  /** The task a first user message poses: the one whose instruction it holds (the longest such). */
  task(userMessage: string): Task {
    let found: Task | undefined;
    for (const task of this.tasks)
      if (userMessage.includes(task.instruction) && task.instruction.length > (found?.instruction.length ?? -1))
        found = task;
    if (!found)
      throw new ConfigError(
        `the simulated model knows the ${this.tasks.length} tasks of ${this.environment.id}, and the first user message poses none of them: "${userMessage.slice(0, 120)}"`,
        { code: 'unknown-task' },
      );
    return found;
  }

  taskById(id: string): Task {
    const task = this.tasks.find((item) => item.id === id);
    if (!task) throw new ConfigError(`task ${id} is not a task of ${this.environment.id}`, { code: 'unknown-task' });
    return task;
  }

  harnessById(id: string): Harness {
    const harness = this.byId.get(id);
    if (!harness)
      throw new ConfigError(
        `harness ${id} is not among the ${this.harnesses.length} the simulated model knows (start it with the pool the run uses: --pool DIR)`,
        { code: 'unknown-harness' },
      );
    return harness;
  }

  /** Each harness's system prompt and offered tool names for a task, worked out once per task. */
  private signatures(task: Task): Promise<Array<{ harness: Harness; system: string | undefined; tools: string }>> {
    let found = this.signatureCache.get(task.id);
    if (!found) {
      found = this.tools(task).then((envTools) =>
        this.harnesses.map((harness) => ({
          harness,
          system: harness.start(task, envTools)[0]?.content,
          tools: harness.codec
            .apiTools(envTools)
            .map((tool) => tool.name)
            .sort()
            .join(','),
        })),
      );
      found.catch(() => this.signatureCache.delete(task.id));
      this.signatureCache.set(task.id, found);
    }
    return found;
  }

  /** The tools an episode of the task offers (the environment's, before the harness's codec). */
  tools(task: Task): Promise<readonly ToolSpec[]> {
    let tools = this.envTools.get(task.id);
    if (!tools) {
      tools = (async () => {
        const episode = await this.environment.open(task);
        try {
          return episode.tools;
        } finally {
          await episode.close();
        }
      })();
      tools.catch(() => this.envTools.delete(task.id));
      this.envTools.set(task.id, tools);
    }
    return tools;
  }

  /**
   * The task, harness and tools of a conversation. Harnesses that render the same system prompt
   * and offer the same tools differ only in what the policy meets later in the conversation (a
   * retry or verification message) or not at all (context limits, step limits): the first whose
   * messages the conversation shows is taken, else the first, which acts alike unless the policy's
   * locality or reach is set (those are particular to each harness).
   */
  async recognise(messages: readonly Message[], offered: readonly string[]): Promise<Recognised> {
    const system = messages[0]?.role === 'system' ? messages[0].content : undefined;
    const user = messages.find((message) => message.role === 'user');
    if (system === undefined || !user)
      throw new ConfigError('the simulated model needs a system message first and a user message posing the task', {
        code: 'bad-request',
      });
    const task = this.task(user.content);
    const envTools = await this.tools(task);
    const names = [...offered].sort().join(',');
    const candidates = (await this.signatures(task)).flatMap(({ harness, system: rendered, tools }) =>
      rendered === system && tools === names ? [harness] : [],
    );
    const said = (text: string | undefined) =>
      text !== undefined && messages.some((message) => message.role === 'user' && message.content.includes(text));
    const harness =
      candidates.find(
        ({ spec }) => said(spec.execution.retryOnError?.message) || said(spec.execution.verifyAfterChange?.message),
      ) ?? candidates[0];
    if (!harness)
      throw new ConfigError(
        `the simulated model knows ${this.harnesses.length} harnesses of ${this.environment.id} (its built-in ones and the pool it was started with), and none renders this system prompt with these tools (${names || 'none'}); start it with the pool the run uses (--pool DIR)`,
        { code: 'unknown-harness' },
      );
    return { task, harness, envTools, plan: this.environment.oraclePlan(task) };
  }
}
