import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, type Evaluation, HttpError } from '@harness-s/core';
import type { z } from 'zod';
import { apiDoc } from './apps/api-docs.js';
import { apps } from './apps/index.js';
import { type AppWorldEnvironment, createAppWorldEnvironment } from './environment.js';
import type { AppWorldEpisode } from './episode.js';
import { BatchExecuteBody, ExecuteBody, InitializeBody, TaskBody, type TaskInfoWire } from './protocol.js';
import { BodyRefused, defaultBodyTimeoutMs, defaultMaxBodyBytes, readBody } from './request-body.js';
import { executeTool } from './tasks/plan-steps.js';
import type { EmbeddedTask } from './tasks/types.js';

export { defaultBodyTimeoutMs, defaultMaxBodyBytes };

export interface AppWorldServerOptions {
  /** The embedded environment to serve; a fresh one by default. */
  environment?: AppWorldEnvironment;
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Always loopback unless told otherwise. */
  host?: string;
  /** Bytes of a request body read at most (`defaultMaxBodyBytes`, 8 MiB); a longer body gets 413. */
  maxBodyBytes?: number;
  /** Time a request body may take to arrive (`defaultBodyTimeoutMs`, 30 s); a slower one gets 408. */
  bodyTimeoutMs?: number;
}

/** A running server. */
export interface AppWorldServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const taskInfo = ({ task, spec }: EmbeddedTask): TaskInfoWire => ({
  task_id: task.id,
  instruction: spec.instruction,
  supervisor: task.supervisor,
  datetime: task.datetime,
  code_language: 'javascript',
});

/** AppWorld's evaluation report from this project's checks. */
function evaluationWire(evaluation: Evaluation, difficulty: number | undefined) {
  return {
    success: evaluation.success,
    difficulty: difficulty ?? null,
    num_tests: evaluation.checks.length,
    passes: evaluation.checks
      .filter((check) => check.passed)
      .map((check) => ({ requirement: check.name, label: 'no_op_fail' })),
    failures: evaluation.checks
      .filter((check) => !check.passed)
      .map((check) => ({ requirement: check.name, trace: check.detail ?? '', label: 'no_op_fail' })),
  };
}

const parse = <T extends z.ZodType>(schema: T, body: unknown): z.infer<T> => {
  const result = schema.safeParse(body);
  if (!result.success)
    throw new HttpError(
      422,
      result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    );
  return result.data;
};

/**
 * The embedded world behind AppWorld's environment-server routes (`/initialize`, `/execute`,
 * `/evaluate`, `/close` ...), so the remote client can be exercised against a real server over
 * HTTP. Like AppWorld's, it runs one task at a time; code actions are JavaScript here. Request
 * bodies are bounded in size and in the time they take to arrive (413 and 408, and the connection
 * is closed without reading the rest).
 */
export async function startAppWorldServer(options: AppWorldServerOptions = {}): Promise<AppWorldServer> {
  const environment = options.environment ?? createAppWorldEnvironment();
  const bodyLimits = {
    maxBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    timeoutMs: options.bodyTimeoutMs ?? defaultBodyTimeoutMs,
  };
  let active: { item: EmbeddedTask; episode: AppWorldEpisode } | null = null;
  // Requests touching the episode run one after another, as in AppWorld's single-task server.
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const current = (taskId: string): { item: EmbeddedTask; episode: AppWorldEpisode } => {
    if (!active) throw new HttpError(400, 'No task is initialized. Call /initialize first.');
    if (active.item.task.id !== taskId)
      throw new HttpError(400, `Task ${taskId} is not the active task (${active.item.task.id}).`);
    return active;
  };
  const closeActive = async (): Promise<void> => {
    const closing = active;
    active = null;
    await closing?.episode.close();
  };
  const execute = async (taskId: string, code: string): Promise<string> =>
    (await current(taskId).episode.step({ tool: executeTool, arguments: { code } })).observation;

  const routes: Record<string, (body: unknown) => Promise<unknown>> = {
    '/initialize': (body) =>
      serialized(async () => {
        const { task_id } = parse(InitializeBody, body);
        const item = environment.world.task(task_id);
        if (!item) throw new HttpError(400, `Unknown task id ${task_id}.`);
        await closeActive();
        active = { item, episode: await environment.open(item.task) };
        return taskInfo(item);
      }),
    '/execute': (body) =>
      serialized(async () => {
        const { task_id, code } = parse(ExecuteBody, body);
        return execute(task_id, code);
      }),
    '/batch_execute': (body) =>
      serialized(async () => {
        const { task_id, codes } = parse(BatchExecuteBody, body);
        const outputs: string[] = [];
        for (const code of codes) outputs.push(await execute(task_id, code));
        return outputs;
      }),
    '/task_completed': (body) => serialized(async () => current(parse(TaskBody, body).task_id).episode.completed),
    '/evaluate': (body) =>
      serialized(async () => {
        const { item, episode } = current(parse(TaskBody, body).task_id);
        return evaluationWire(await episode.evaluate(), item.task.difficulty);
      }),
    '/save': async () => null,
    '/save_logs': async () => null,
    '/close': (body) =>
      serialized(async () => {
        current(parse(TaskBody, body).task_id);
        await closeActive();
        return null;
      }),
    '/close_all': () => serialized(async () => closeActive().then(() => null)),
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const send = (status: number, payload: unknown, close = false) => {
      response.writeHead(status, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) });
      response.end(JSON.stringify(payload));
    };
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (request.method === 'GET' && path === '/api_docs') {
        send(
          200,
          Object.fromEntries(
            apps.map((app) => [app.name, Object.fromEntries(app.apis.map((api) => [api.name, apiDoc(app, api.name)]))]),
          ),
        );
        return;
      }
      const taskMatch = /^\/tasks\/([^/]+)$/.exec(path);
      if (request.method === 'GET' && taskMatch) {
        const item = environment.world.task(decodeURIComponent(taskMatch[1] ?? ''));
        if (!item) throw new HttpError(404, 'Task not found.');
        send(200, { output: taskInfo(item) });
        return;
      }
      const route = request.method === 'POST' ? routes[path] : undefined;
      if (!route) throw new HttpError(404, 'Not Found');
      send(200, { output: await route(await readBody(request, bodyLimits)) });
    } catch (error) {
      // A refused body is left unread: the connection closes once the answer is out.
      send(
        error instanceof HttpError ? error.status : 500,
        { detail: describeError(error) },
        error instanceof BodyRefused,
      );
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    port,
    async close() {
      await serialized(closeActive);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
