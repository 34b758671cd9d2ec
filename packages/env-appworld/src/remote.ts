import { readFile } from 'node:fs/promises';
import {
  type Action,
  ConfigError,
  describeError,
  type Environment,
  type Episode,
  type Evaluation,
  InfrastructureError,
  InputError,
  type OpenOptions,
  type OraclePlan,
  type StepResult,
  type TaskSet,
  type TaskSource,
  type Trajectory,
  type UnloadableTask,
  withHardness,
} from '@harness-s/core';
import { z } from 'zod';
import { appworldEmptyPlan } from './environment.js';
import { appworldToolsFor } from './episode.js';
import { goalCompletion, goalCompletionLines } from './goal-completion.js';
import { EvaluationWire, InitializeBody, initializeDefaults, TaskInfoWire } from './protocol.js';
import { appworldHardness } from './task-hardness.js';
import { appworldSkills, executeTool } from './tasks/plan-steps.js';
import { type AppWorldTask, appworldSplits } from './tasks/types.js';
import { EmbeddedWorld, withSupervisor } from './world/embedded-world.js';

export interface AppWorldRemoteOptions {
  /** Environment servers, one task each at a time: as many parallel episodes as URLs. */
  urls: string[];
  /** Per request (code blocks can run long). Default 120 s. */
  timeoutMs?: number;
  /** Seed of the embedded world whose task ids and plans the named splits use. */
  seed?: number;
}

/** Server URLs lent to one episode at a time; the others wait in line. */
class UrlPool {
  private readonly free: string[];
  private readonly waiting: Array<(url: string) => void> = [];

  constructor(urls: readonly string[]) {
    this.free = [...urls];
  }

  acquire(signal?: AbortSignal): Promise<string> {
    const url = this.free.shift();
    if (url) return Promise.resolve(url);
    return new Promise((resolve, reject) => {
      const waiter = (freed: string) => resolve(freed);
      this.waiting.push(waiter);
      signal?.addEventListener('abort', () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      });
    });
  }

  release(url: string): void {
    const next = this.waiting.shift();
    if (next) next(url);
    else this.free.push(url);
  }
}

/** POSTs (or GETs) one route and unwraps `{"output": ...}`; any failure is an InfrastructureError. */
async function call(url: string, route: string, body: unknown, timeoutMs: number): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${url}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new InfrastructureError(`AppWorld server ${url}${route} unreachable: ${describeError(error)}`, {
      code: 'appworld-unreachable',
      cause: error,
    });
  }
  const text = await response.text();
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = text;
  }
  if (!response.ok) {
    const detail = z.object({ detail: z.unknown() }).safeParse(payload);
    // AppWorld's servers (FastAPI, and this project's) answer errors as {"detail": ...}, and a
    // route they lack as {"detail": "Not Found"}: a 404 like that, or without a detail, is another
    // kind of server at this address (a model's, say) or a URL with a path it should not have.
    const elsewhere =
      response.status === 404 && (!detail.success || detail.data.detail === 'Not Found')
        ? ` (is ${url} an AppWorld environment server, without a path? Start one with \`appworld serve environment\` or \`harness-s serve appworld\`)`
        : '';
    throw new InfrastructureError(
      `AppWorld server ${url}${route} answered ${response.status}: ${detail.success ? JSON.stringify(detail.data.detail) : text.trim().slice(0, 300)}${elsewhere}`,
      { code: `appworld-http-${response.status}` },
    );
  }
  const wrapped = z.object({ output: z.unknown() }).safeParse(payload);
  if (!wrapped.success)
    throw new InfrastructureError(`AppWorld server ${url}${route}: reply without "output"`, {
      code: 'appworld-bad-reply',
    });
  return wrapped.data.output;
}

function parseWire<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new InfrastructureError(`AppWorld server: unexpected ${where} reply: ${parsed.error.message}`, {
      code: 'appworld-bad-reply',
    });
  return parsed.data;
}

/** One task on one server: code goes to `/execute`, the score comes from `/evaluate`. */
class RemoteEpisode implements Episode<AppWorldTask> {
  get tools() {
    return appworldToolsFor(this.task.codeLanguage);
  }
  private closed = false;
  private completed = false;

  constructor(
    readonly task: AppWorldTask,
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly release: () => void,
  ) {}

  async step(action: Action): Promise<StepResult> {
    if (this.completed)
      return {
        observation: 'The task is already completed.',
        done: true,
        error: { kind: 'episode-done', message: 'task completed' },
      };
    const code = action.arguments['code'];
    if (action.tool !== executeTool || typeof code !== 'string' || code.trim() === '') {
      const message =
        action.tool !== executeTool
          ? `unknown tool '${action.tool}'; the only tool is ${executeTool}(code)`
          : "execute needs 'code': the code to run, as a string";
      return {
        observation: message,
        done: false,
        error: { kind: action.tool !== executeTool ? 'unknown-tool' : 'bad-arguments', message },
      };
    }
    let output: string;
    try {
      output = String(await call(this.url, '/execute', { task_id: this.task.id, code }, this.timeoutMs));
    } catch (error) {
      // A server that refuses the request for its size (`serve appworld` caps bodies) refuses what
      // the agent wrote, not a broken server: the agent is told, and the episode goes on.
      if (!InfrastructureError.isInstance(error) || error.code !== 'appworld-http-413') throw error;
      const message = `the code block is too large for the AppWorld server (${code.length} characters); send less code at a time`;
      return { observation: message, done: false, error: { kind: 'bad-arguments', message } };
    }
    this.completed = (await call(this.url, '/task_completed', { task_id: this.task.id }, this.timeoutMs)) === true;
    const failed = output.startsWith('Execution failed');
    return {
      observation: output,
      done: this.completed,
      ...(failed ? { error: { kind: 'exception', message: output.trimEnd().split('\n').pop() ?? output } } : {}),
    };
  }

  async evaluate(): Promise<Evaluation> {
    const report = parseWire(
      EvaluationWire,
      await call(
        this.url,
        '/evaluate',
        { task_id: this.task.id, suppress_errors: true, report: false },
        this.timeoutMs,
      ),
      '/evaluate',
    );
    const checks = [
      ...report.passes.map((item) => ({ name: item.requirement, passed: true })),
      ...report.failures.map((item) => ({
        name: item.requirement,
        passed: false,
        ...(item.trace ? { detail: item.trace } : {}),
      })),
    ];
    return {
      reward: report.success ? 1 : 0,
      success: report.success,
      checks,
      details: { server: this.url, difficulty: report.difficulty ?? null, numTests: report.num_tests ?? checks.length },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await call(this.url, '/close', { task_id: this.task.id }, this.timeoutMs);
    } catch {
      // The next /initialize on this server replaces the task anyway.
    } finally {
      this.release();
    }
  }
}

/**
 * A client for AppWorld environment servers: the real one (`appworld serve environment`, Python
 * code actions) or this project's (`harness-s serve appworld`, JavaScript). Each server runs one
 * task at a time, so parallel episodes need a pool of server URLs.
 */
export function createAppWorldRemoteEnvironment(options: AppWorldRemoteOptions): Environment<AppWorldTask> {
  if (options.urls.length === 0)
    throw new ConfigError('the AppWorld client needs at least one server URL', { code: 'no-appworld-url' });
  const urls = options.urls.map((url) => url.replace(/\/+$/, ''));
  const pool = new UrlPool(urls);
  const timeoutMs = options.timeoutMs ?? 120_000;
  let world: EmbeddedWorld | null = null;
  const embedded = (): EmbeddedWorld => {
    world ??= EmbeddedWorld.forSeed(options.seed);
    return world;
  };

  const fetchTask = async (id: string, split: string): Promise<AppWorldTask> => {
    const info = parseWire(
      TaskInfoWire,
      await call(urls[0] ?? '', `/tasks/${encodeURIComponent(id)}`, undefined, timeoutMs),
      '/tasks',
    );
    const known = info.code_language === 'javascript' ? embedded().task(id)?.task : undefined;
    const [scenarioId = id, variant = '1'] = id.split('_');
    return {
      id,
      env: 'appworld',
      split,
      instruction: withSupervisor(info.supervisor, info.instruction),
      ...(known?.category ? { category: known.category } : {}),
      tags: known?.tags ?? [],
      ...(known?.difficulty ? { difficulty: known.difficulty } : {}),
      scenarioId,
      variant: Number(variant) || 1,
      supervisor: info.supervisor,
      datetime: info.datetime ?? '',
      codeLanguage: info.code_language ?? 'python',
    };
  };

  return {
    id: 'appworld',
    splits: [...appworldSplits],
    skills: appworldSkills,

    async loadTasks(source: TaskSource): Promise<TaskSet<AppWorldTask>> {
      let ids: string[];
      let split: string;
      if (source.file) {
        let text: string;
        try {
          text = await readFile(source.file, 'utf8');
        } catch (error) {
          throw new InputError(`cannot read task id file ${source.file}: ${describeError(error)}`, {
            code: 'unreadable-file',
          });
        }
        ids = text
          .split('\n')
          .map((line) => line.replace(/#.*/, '').trim())
          .filter((line) => line !== '');
        split = source.file;
      } else {
        split = source.split ?? 'dev';
        ids = embedded()
          .tasks.filter((item) => item.task.split === split)
          .map((item) => item.task.id);
        if (ids.length === 0)
          throw new ConfigError(
            `appworld has no split '${split}'; use one of ${appworldSplits.join(', ')} or a task file of task ids`,
            { code: 'unknown-split' },
          );
      }
      const tasks: AppWorldTask[] = [];
      const unloadable: UnloadableTask[] = [];
      for (const id of ids) {
        try {
          tasks.push(await fetchTask(id, split));
        } catch (error) {
          unloadable.push({ id, reason: describeError(error) });
        }
      }
      return { tasks, unloadable };
    },

    async open(task: AppWorldTask, openOptions?: OpenOptions): Promise<Episode<AppWorldTask>> {
      const url = await pool.acquire(openOptions?.signal);
      try {
        const info = parseWire(
          TaskInfoWire,
          await call(url, '/initialize', InitializeBody.parse({ task_id: task.id, ...initializeDefaults }), timeoutMs),
          '/initialize',
        );
        if (info.task_id !== task.id)
          throw new InfrastructureError(`${url} initialized ${info.task_id}, not ${task.id}`, {
            code: 'appworld-wrong-task',
          });
        return new RemoteEpisode(task, url, timeoutMs, () => pool.release(url));
      } catch (error) {
        pool.release(url);
        throw error;
      }
    },

    oraclePlan(task: AppWorldTask): OraclePlan {
      const known = task.codeLanguage === 'javascript' ? embedded().task(task.id) : undefined;
      if (!known) {
        throw new ConfigError(
          `no oracle plan for ${task.id}: plans exist only for the embedded world's tasks (AppWorld's own solutions are not redistributable)`,
          { code: 'no-oracle-plan' },
        );
      }
      // The same hardness as the embedded environment's, so the simulated policy meets the same task.
      return withHardness({ taskId: task.id, nodes: known.spec.plan }, appworldHardness(known.task));
    },

    emptyPlan: appworldEmptyPlan,

    extendSummary(trajectories: readonly Trajectory[], tasks: readonly AppWorldTask[]) {
      return { appworld: goalCompletion(trajectories, tasks) };
    },

    summaryLines: goalCompletionLines,

    async close(): Promise<void> {},
  };
}

/**
 * A task id of AppWorld's own dataset, for checking the real server, which answers only for task
 * ids it has.
 */
export const appworldProbeTaskId = '82e2fac_1';

/**
 * Checks an AppWorld server without an agent: whether it is this project's (JavaScript code
 * actions; it names its language for the embedded world's tasks) or AppWorld's own (Python), and
 * for the latter that it initializes a task of its dataset, runs a line of Python and closes it.
 */
export async function probeAppWorldServer(
  url: string,
  timeoutMs = 30_000,
  /** The task AppWorld's own server initializes (one of its dataset's). */
  taskId = appworldProbeTaskId,
): Promise<{ language: 'javascript' | 'python'; detail: string }> {
  const base = url.replace(/\/+$/, '');
  const [first] = EmbeddedWorld.forSeed(undefined).tasks;
  if (first) {
    const info = TaskInfoWire.safeParse(
      await call(base, `/tasks/${encodeURIComponent(first.task.id)}`, undefined, timeoutMs).catch(() => null),
    );
    if (info.success && info.data.code_language === 'javascript')
      return { language: 'javascript', detail: `serves the embedded world (${first.task.id})` };
  }
  const id = taskId;
  parseWire(
    TaskInfoWire,
    await call(base, '/initialize', { task_id: id, ...initializeDefaults }, timeoutMs),
    '/initialize',
  );
  try {
    const output = String(
      await call(base, '/execute', { task_id: id, code: 'print("harness-s " + "doctor")' }, timeoutMs),
    );
    if (!output.includes('harness-s doctor'))
      throw new InfrastructureError(
        `${base} ran print("harness-s " + "doctor") on ${id} and answered: ${output.slice(0, 200)}`,
        {
          code: 'appworld-bad-reply',
        },
      );
  } finally {
    await call(base, '/close', { task_id: id }, timeoutMs).catch(() => undefined);
  }
  return { language: 'python', detail: `AppWorld's own server: initialized ${id} and ran Python code` };
}
