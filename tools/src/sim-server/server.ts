import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, deriveSeed, type EpisodeContext, HttpError, lockRunFolder } from '@harness-s/core';
import {
  type DecisionsToTrain,
  policyTurns,
  SimulatedGrpoTrainer,
  SimulatedPolicy,
  type SimulatedTrainerOptions,
} from '@harness-s/policy';
import type { z } from 'zod';
import { type AppliedUpdate, ServedPolicyStore } from './store.js';
import { BatchLine, ChatRequest, fromWire } from './wire.js';
import type { SimulatedModelWorld } from './world.js';

export type { AppliedUpdate } from './store.js';
export { fromWire } from './wire.js';

/** The model name the server answers to. */
export const servedModelName = 'sim';

export interface SimulatedModelServerOptions {
  world: SimulatedModelWorld;
  /** The policy served before any update. */
  policy: SimulatedPolicy;
  trainer?: Partial<SimulatedTrainerOptions>;
  host?: string;
  port?: number;
  /** Seeds the draws of the served episodes (each request draws afresh). */
  seed?: number;
  /**
   * A folder for the served parameters: each update's policy is written as
   * `checkpoints/policy-step-N.json` (what `eval --checkpoint` reads) before it is answered, and a
   * server started on a folder that holds them continues from them.
   */
  dir?: string;
  log?: (line: string) => void;
}

export interface SimulatedModelServer {
  /** e.g. `http://127.0.0.1:8100/v1`: the `--base-url` to give `train --policy openai`. */
  readonly url: string;
  /** The policy served now. */
  readonly policy: SimulatedPolicy;
  readonly updates: readonly AppliedUpdate[];
  close(): Promise<void>;
}

/**
 * The simulated policy behind an OpenAI-compatible chat completions endpoint, which learns from the
 * training batches a run hands over: a stand-in for a served model and its external trainer, to
 * try a `train --policy openai --on-batch ...` set-up end to end on one machine. It is a
 * simulation, not a language model.
 *
 * - `POST /v1/chat/completions` reads the task and the harness from the conversation, follows the
 *   turns it holds (teacher forcing), and samples the next with fresh draws.
 * - `POST /v1/sim/update?step=N` (the run in an `X-Harness-S-Run` header or `&run=`) takes a batch (JSONL of training examples, as `batches/step-N.jsonl`
 *   holds them), recovers each attempt's decisions from its messages and applies the simulated
 *   GRPO update to the policy after step N - 1: a step handed over again replaces its update.
 * - `GET /v1/sim/state` gives the served parameters and the updates applied; `GET /v1/models` the model
 *   and, once a run has handed a batch over, that run (`harness_s.run`) and its steps.
 */
export async function startSimulatedModelServer(options: SimulatedModelServerOptions): Promise<SimulatedModelServer> {
  const { world } = options;
  const log = options.log ?? (() => {});
  const store = options.dir ? new ServedPolicyStore(options.dir, world.environment.id) : undefined;
  // The policy it starts from is the one before step 1, whatever run it came from.
  const initial = new SimulatedPolicy(options.policy.config, 0);
  // Read from the folder once the port is taken (nothing is made for a port in use); no request is
  // answered before.
  let snapshots = new Map<number, SimulatedPolicy>([[0, initial]]);
  let served = initial;
  let updates: AppliedUpdate[] = [];
  let requests = 0;

  const complete = async (body: unknown) => {
    const request = parse(ChatRequest, body, 'chat completion request');
    if ((request.n ?? 1) !== 1) throw new HttpError(400, 'the simulated model answers one choice per request (n = 1)');
    if (request.stream) throw new HttpError(400, 'the simulated model does not stream: send stream false');
    const messages = fromWire(request.messages);
    const offered = (request.tools ?? []).map((tool) => tool.function.name);
    const recognised = await world.recognise(messages, offered);
    requests += 1;
    // With the request's seed an episode draws as it would in-process; without, each turn draws afresh.
    const seed = request.seed ?? deriveSeed(options.seed ?? 0, 'served', requests);
    const policy = served;
    const context = { ...recognised, seed };
    const session = policy.startEpisode(context);
    // Walk to where the conversation is: its turns, as the policy would have written them.
    session.follow(policyTurns(context, messages, false));
    const response = await session.respond({ messages, tools: [] });
    const { message, usage } = response;
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: servedModelName,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: message.content,
            ...(message.toolCalls?.length
              ? {
                  tool_calls: message.toolCalls.map((call, index) => ({
                    id: `call_${randomUUID().slice(0, 8)}_${index}`,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: message.toolCalls?.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      },
    };
  };

  /**
   * An attempt under a variant, handed over in H0's context, is one re-rendered under H0: followed
   * knowing the variant. One of a variant this server was not given (`--pool`) is followed as
   * written, and left out where its turns are the variant's.
   */
  const followOptions = (example: { context: string; harnessId: string }) => {
    if (example.context !== 'h0' || example.harnessId === world.h0.spec.id) return {};
    try {
      return { rerenderedFrom: world.harnessById(example.harnessId) };
    } catch (error) {
      if (ConfigError.isInstance(error)) return {};
      throw error;
    }
  };

  const update = async (step: number, batch: string, run: string | undefined) => {
    // Another run's batch would roll back (and delete) what this one's updates made.
    const other = run === undefined ? undefined : updates.find((item) => item.run !== undefined && item.run !== run);
    if (other)
      throw new HttpError(
        409,
        `this server's parameters come from run ${other.run} (its updates of steps ${updates.map((item) => item.step).join(', ')}); a batch of run ${run} would replace them: serve each run from a server (and --out folder) of its own (a run is known by its folder's path, as HARNESS_S_RUN gives it)`,
      );
    const base = snapshots.get(step - 1);
    if (!base)
      throw new HttpError(
        409,
        `no policy after step ${step - 1} on this server (it has ${[...snapshots.keys()].join(', ')}): hand the steps over in order`,
      );
    const items: DecisionsToTrain[] = [];
    const unfollowed: string[] = [];
    const groups = new Set<string>();
    const lines = batch.split('\n');
    for (const [index, line] of lines.entries()) {
      if (line.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (error) {
        throw new HttpError(400, `batch line ${index + 1}: not JSON (${(error as Error).message})`);
      }
      const where = `batch line ${index + 1}`;
      const example = parse(BatchLine, json, where);
      if (example.step !== undefined && example.step !== step)
        throw new HttpError(
          400,
          `${where}: comes from step ${example.step}, but the batch is handed over as step ${step}`,
        );
      if (example.trained === false)
        throw new HttpError(
          400,
          `${where} (${example.groupId}): the run did not train on this attempt (an export with --all holds them); hand over the run's batch, or an export without --all`,
        );
      let context: EpisodeContext;
      try {
        const task = world.taskById(example.taskId);
        const harness = example.context === 'h0' ? world.h0 : world.harnessById(example.harnessId);
        const envTools = await world.tools(task);
        context = { task, harness, envTools, plan: world.environment.oraclePlan(task), seed: 0 };
        const system = harness.start(task, envTools)[0]?.content;
        if (example.messages[0]?.content !== system)
          throw new ConfigError(
            `its system prompt is not the one ${harness.spec.id} renders${example.context === 'h0' ? ` (this server's H0; start it with the run's --base and --pool)` : ''}`,
            { code: 'unknown-harness' },
          );
      } catch (error) {
        if (!ConfigError.isInstance(error)) throw error;
        throw new HttpError(400, `${where} (${example.groupId}): ${error.message}`);
      }
      let decisions: ReturnType<SimulatedPolicy['follow']>;
      try {
        decisions = base.follow(context, fromWire(example.messages), followOptions(example));
      } catch (error) {
        if (!ConfigError.isInstance(error)) throw error;
        const message = `${where} (${example.groupId}): ${error.message}`;
        // An attempt whose turns the plan cannot produce (code a tool transform rewrote, re-rendered
        // under H0) is left out of the update and reported; anything else refuses the batch.
        if (error.code !== 'unfollowable-turn') throw new HttpError(400, message);
        unfollowed.push(message.length > 400 ? `${message.slice(0, 400)}...` : message);
        continue;
      }
      items.push({ advantage: example.advantage, context: example.context, decisions: decisions.flat() });
      groups.add(example.groupId);
    }
    const trainer = new SimulatedGrpoTrainer(base, options.trainer);
    const result = trainer.updateFrom(items, step);
    for (const key of snapshots.keys()) if (key >= step) snapshots.delete(key);
    snapshots.set(step, trainer.policy);
    const applied: AppliedUpdate = {
      step,
      examples: items.length,
      groups: groups.size,
      updateNorm: result.stats['updateNorm'] ?? 0,
      unfollowed,
      ...(run === undefined ? {} : { run }),
    };
    const kept = [...updates.filter((item) => item.step < step), applied];
    // Recorded before it is served or answered: a server killed now restarts from it.
    await store?.save(trainer.policy, kept);
    served = trainer.policy;
    updates = kept;
    log(
      `step ${step}: ${items.length} attempts in ${groups.size} groups, update norm ${applied.updateNorm.toFixed(3)}${unfollowed.length > 0 ? `; ${unfollowed.length} left out, the first: ${unfollowed[0]}` : ''}`,
    );
    return applied;
  };

  const route = async (request: IncomingMessage): Promise<unknown> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      // The run its parameters come from, so that another run is refused before it samples from them.
      const run = updates.find((item) => item.run !== undefined)?.run;
      const from = run === undefined ? {} : { harness_s: { run, steps: updates.map((item) => item.step) } };
      return { object: 'list', data: [{ id: servedModelName, object: 'model', owned_by: 'harness-s', ...from }] };
    }
    if (request.method === 'GET' && url.pathname === '/v1/sim/state')
      return { model: servedModelName, step: served.step, version: served.version, config: served.config, updates };
    if (request.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const raw = await readBody(request);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        throw new HttpError(400, 'the request body is not JSON');
      }
      return complete(body);
    }
    if (request.method === 'POST' && url.pathname === '/v1/sim/update') {
      const given = url.searchParams.get('step');
      const step = Number(given);
      if (given === null || !Number.isInteger(step) || step < 1)
        throw new HttpError(
          400,
          given === null
            ? 'give the step the batch comes from: /v1/sim/update?step=N (HARNESS_S_STEP in --on-batch)'
            : `?step= must be the step the batch comes from (1 or more), got '${given}'`,
        );
      // The run that hands it over: a header (what the printed --on-batch sends) or ?run=.
      const header = request.headers['x-harness-s-run'];
      const run = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('run') ?? undefined;
      return update(step, await readBody(request), run);
    }
    throw new HttpError(
      404,
      `no route ${request.method} ${url.pathname}: this server answers POST /v1/chat/completions, POST /v1/sim/update?step=N, GET /v1/sim/state and GET /v1/models (a --base-url ends in /v1)`,
    );
  };

  let ready: Promise<void> | undefined;
  const server = createServer((request, response) => {
    (ready ?? Promise.resolve())
      .then(() => route(request))
      .then(
        (body) => send(response, 200, body),
        (error: unknown) => {
          const status = error instanceof HttpError ? error.status : ConfigError.isInstance(error) ? 400 : 500;
          const message = error instanceof Error ? error.message : String(error);
          if (status === 500) log(`error: ${message}`);
          send(response, status, {
            error: { message, type: status === 500 ? 'server_error' : 'invalid_request_error' },
          });
        },
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  let lock: { release(): Promise<void> } | undefined;
  // A folder this start makes is removed again when the start fails.
  const made = options.dir !== undefined && !existsSync(options.dir);
  ready = (async () => {
    if (!store || !options.dir) return;
    await mkdir(options.dir, { recursive: true });
    // One server writes a folder: a second would interleave its updates with the first's.
    lock = await lockRunFolder(options.dir);
    const saved = await store.load();
    if (saved) {
      snapshots = saved.snapshots;
      served = [...snapshots.entries()].sort(([a], [b]) => b - a)[0]?.[1] ?? initial;
      updates = saved.updates;
    } else await store.save(initial, []);
  })();
  try {
    await ready;
  } catch (error) {
    await closeServer();
    await lock?.release();
    if (made && options.dir) await rm(options.dir, { recursive: true, force: true });
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    get policy() {
      return served;
    },
    get updates() {
      return updates;
    },
    close: async () => {
      await closeServer();
      await lock?.release();
    },
  };
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `${what}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const maxBodyBytes = 256 * 1024 * 1024;

/** The request's body; over the limit it is read to its end and dropped, and answered with 413. */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () =>
      size > maxBodyBytes
        ? reject(new HttpError(413, `request body of ${size} bytes, over the ${maxBodyBytes} this server takes`))
        : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const data = `${JSON.stringify(body)}\n`;
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  response.end(data);
}
