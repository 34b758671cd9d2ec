import {
  ConfigError,
  formatZodError,
  InfrastructureError,
  type Policy,
  type PolicyRequest,
  type PolicyResponse,
} from '@harness-s/core';
import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { z } from 'zod';
import { MalformedCompletion, parseChatCompletion, toChatMessages, toChatTools } from './openai-messages.js';

/** Options of `createOpenAIPolicy`. Unknown keys are rejected so a typo (`baseURL`) is not silently ignored. */
export const OpenAIPolicyOptions = z
  .object({
    /** Base URL of the API including its version prefix, e.g. `http://localhost:8000/v1`. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** Model name as the server knows it, e.g. `Qwen/Qwen3-8B` or `gpt-4o-mini`. */
    model: z.string().min(1),
    /** Defaults to $OPENAI_API_KEY, else `EMPTY`, which vLLM and SGLang accept when started without a key. */
    apiKey: z
      .string()
      .min(1)
      .default(() => {
        const { OPENAI_API_KEY: fromEnv } = process.env;
        return fromEnv || 'EMPTY';
      }),
    temperature: z.number().min(0).default(1),
    /** Sent as `max_tokens`, which every compatible server understands. */
    maxTokens: z.number().int().positive().optional(),
    /** Per attempt; the SDK applies it to each retry separately. */
    timeoutMs: z.number().int().positive().default(120_000),
    /** Retries of 408/409/429/5xx, connection errors and timeouts, with the SDK's backoff. */
    maxRetries: z.number().int().nonnegative().default(4),
    /** Extra top-level request fields, e.g. vLLM's `top_k` or `chat_template_kwargs`. */
    extraBody: z.record(z.string(), z.unknown()).optional(),
    /** Ask vLLM for the completion's token ids (`return_token_ids: true`), e.g. for training. */
    returnTokenIds: z.boolean().default(false),
    /** Ask for the completion tokens' log-probabilities (`logprobs: true`), e.g. for importance ratios. */
    logprobs: z.boolean().default(false),
    /**
     * Send each episode's seed as the requests' `seed`: vLLM then samples an episode's turns
     * reproducibly, and `harness-s serve sim` draws as the simulated policy does in process.
     */
    seeded: z.boolean().default(false),
  })
  .strict();
/** Options as callers write them; defaults are filled in by `createOpenAIPolicy`. */
export type OpenAIPolicyOptions = z.input<typeof OpenAIPolicyOptions>;
/** Options with defaults applied. */
export type OpenAIPolicySettings = z.output<typeof OpenAIPolicyOptions>;

/** What the policy tells its caller besides its answers. */
export interface OpenAIPolicyHooks {
  /** Called once for each thing asked of the server that it left out of its answers. */
  warn?: (message: string) => void;
}

/**
 * A policy backed by any OpenAI-compatible chat completions server (vLLM, SGLang, Ollama,
 * llama.cpp server, hosted APIs). Throws `ConfigError` naming the field when an option is invalid.
 *
 * Each `respond` is one non-streaming request. Failures surface as core errors so the runner can
 * tell them apart: `InfrastructureError` (`model-server-unavailable`) once the SDK has run out of
 * retries, `InfrastructureError` (`model-bad-response`) for an unusable 200 body, `ConfigError`
 * (`model-request-rejected`) for statuses a retry cannot fix; an aborted signal rethrows its reason.
 * When the server answers without the token ids or log-probabilities asked for, or cuts a reply at
 * the token limit, `hooks.warn` is told once for each.
 */
export function createOpenAIPolicy(options: OpenAIPolicyOptions, hooks: OpenAIPolicyHooks = {}): Policy {
  const parsed = OpenAIPolicyOptions.safeParse(options);
  if (!parsed.success) {
    throw new ConfigError(`invalid OpenAI policy option: ${formatZodError(parsed.error)}`, {
      code: 'bad-policy-option',
      cause: parsed.error,
    });
  }
  const settings = parsed.data;
  const client = new CompatibleClient({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRetries: settings.maxRetries,
    timeout: settings.timeoutMs,
  });
  const { apiKey: _secret, ...described } = settings;
  const missing = new MissingFields(hooks.warn);
  return {
    id: `openai:${settings.model}`,
    version: settings.model,
    needsPlan: false,
    // One client serves every episode so connections are reused; a session holds no state of its own.
    startEpisode: (context) => ({
      respond: async (request) =>
        noteMissing(
          await respond(client, settings, request, settings.seeded ? context.seed : undefined),
          settings,
          missing,
        ),
    }),
    describe: () => ({ ...described }),
  };
}

async function respond(
  client: OpenAI,
  settings: OpenAIPolicySettings,
  request: PolicyRequest,
  seed: number | undefined,
): Promise<PolicyResponse> {
  // The fields the policy owns come after `extraBody`, so it cannot replace the conversation or turn on streaming.
  const body = {
    ...settings.extraBody,
    ...(settings.returnTokenIds ? { return_token_ids: true } : {}),
    ...(settings.logprobs ? { logprobs: true } : {}),
    ...(seed === undefined ? {} : { seed }),
    model: settings.model,
    messages: toChatMessages(request.messages),
    temperature: settings.temperature,
    ...(settings.maxTokens === undefined ? {} : { max_tokens: settings.maxTokens }),
    // OpenAI rejects an empty `tools` array, so it is left out when there are no tools.
    ...(request.tools.length ? { tools: toChatTools(request.tools) } : {}),
    stream: false as const,
  };
  const scope = scopedSignal(request.signal);
  let completion: unknown;
  try {
    completion = await client.chat.completions.create(body, { signal: scope.signal });
  } catch (error) {
    throw toCoreError(error, settings, request.signal);
  } finally {
    scope.release();
  }
  try {
    return parseChatCompletion(completion);
  } catch (error) {
    if (!(error instanceof MalformedCompletion)) throw error;
    throw badResponse(settings, error.message, error);
  }
}

/** Tells, once for each kind, what the server did that a run should know of: left out what was asked of it, or cut a reply. */
class MissingFields {
  private readonly told = new Set<string>();
  constructor(private readonly warn: ((message: string) => void) | undefined) {}

  note(field: string, message: string): void {
    if (this.told.has(field) || !this.warn) return;
    this.told.add(field);
    this.warn(message);
  }
}

function noteMissing(response: PolicyResponse, settings: OpenAIPolicySettings, missing: MissingFields): PolicyResponse {
  const server = `model server ${settings.baseUrl}`;
  if (settings.returnTokenIds && response.completionTokenIds === undefined)
    missing.note(
      'token ids',
      `${server} answered without the completion's token ids asked for (return_token_ids); the recorded turns and exported batches will have none. vLLM returns them; other servers may ignore the field`,
    );
  if (response.cutOff)
    missing.note(
      'cut off',
      `${server} cut a reply at the token limit (finish_reason length${settings.maxTokens === undefined ? ", the server's own limit" : `, max_tokens ${settings.maxTokens}`}); such turns are recorded with cutOff, and a cut reply often fails to parse: raise --max-tokens`,
    );
  if (settings.logprobs && response.completionLogprobs === undefined)
    missing.note(
      'logprobs',
      `${server} answered without the log-probabilities asked for (logprobs); the recorded turns and exported batches will have none`,
    );
  return response;
}

/** Maps what the SDK threw to the core error the runner acts on. */
function toCoreError(error: unknown, settings: OpenAIPolicySettings, signal: AbortSignal | undefined): unknown {
  // The caller's abort wins over whatever the SDK made of it, so cancellation is never retried as an outage.
  if (signal?.aborted) return signal.reason;
  const { baseUrl, model, maxRetries } = settings;
  const gaveUp = `gave up after ${maxRetries} ${maxRetries === 1 ? 'retry' : 'retries'}`;
  if (error instanceof APIError && error.status !== undefined) {
    const detail = `HTTP ${error.status}: ${serverMessage(error)}`;
    if (isRetryableStatus(error.status)) {
      return new InfrastructureError(`model server ${baseUrl} is unavailable (${detail}; ${gaveUp})`, {
        code: 'model-server-unavailable',
        cause: error,
      });
    }
    return new ConfigError(
      `model server ${baseUrl} rejected the request for model "${model}" (${detail})${rejectionHint(error.status)}`,
      { code: 'model-request-rejected', cause: error },
    );
  }
  if (error instanceof APIConnectionTimeoutError) {
    return new InfrastructureError(
      `model server ${baseUrl} did not answer within ${settings.timeoutMs} ms (timeout; ${gaveUp})`,
      { code: 'model-server-unavailable', cause: error },
    );
  }
  // A 200 whose body claims to be JSON but is not: the SDK's `response.json()` throws this.
  if (error instanceof SyntaxError) return badResponse(settings, `body is not JSON (${error.message})`, error);
  // Connection refused or reset, DNS failure, a body cut off mid-read.
  return new InfrastructureError(`model server ${baseUrl} is unreachable (${causeChain(error)}; ${gaveUp})`, {
    code: 'model-server-unavailable',
    cause: error,
  });
}

function badResponse(settings: OpenAIPolicySettings, what: string, cause: unknown): InfrastructureError {
  return new InfrastructureError(`model server ${settings.baseUrl} returned an unusable chat completion: ${what}`, {
    code: 'model-bad-response',
    cause,
  });
}

/** The statuses the SDK retries; after it gives up on them the server is treated as down. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function rejectionHint(status: number): string {
  if (status === 401 || status === 403) return '; check the API key';
  if (status === 404) return '; check the model name and that the base URL includes the API prefix (e.g. /v1)';
  return '';
}

/** The server's own error text, kept short because proxies may answer with a whole HTML page. */
function serverMessage(error: APIError): string {
  const body: unknown = error.error;
  let text: string;
  // OpenAI's `{ message }`, or FastAPI's `{ detail }` (vLLM's router answers a wrong path with it).
  const { message, detail } = isRecord(body) ? body : {};
  if (typeof message === 'string') text = message;
  else if (typeof detail === 'string') text = detail;
  else {
    // Without a JSON error the SDK's message is `<status> <body text>`; the status is reported separately.
    const prefix = `${error.status} `;
    text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** `Connection error: fetch failed: connect ECONNREFUSED 127.0.0.1:9` — the useful part is in the causes. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current !== undefined && parts.length < 4) {
    // The SDK's messages end in a full stop ("Connection error."), which reads doubled before a colon.
    const message = current instanceof Error ? current.message : String(current);
    parts.push(message.replace(/\.$/, ''));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A signal for one request that follows the caller's signal. The SDK adds an abort listener to the
 * signal it is given and never removes it, so handing it an episode-long signal would pile up one
 * listener per turn (and Node's leak warning after ten).
 */
function scopedSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; release(): void } {
  if (signal === undefined) return { release: () => {} };
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', forward) };
}

/**
 * The SDK client, also reading the flat error bodies that SGLang and older vLLM send
 * (`{"object": "error", "message": ...}`); OpenAI nests them under `error`, and without this the
 * SDK reports the flat ones as "(no body)".
 */
class CompatibleClient extends OpenAI {
  protected override makeStatusError(
    status: number,
    error: object,
    message: string | undefined,
    headers: Headers,
  ): APIError {
    const { error: inner, message: text } = isRecord(error) ? error : {};
    const nested = isRecord(error) && inner === undefined && typeof text === 'string' ? { error } : error;
    return super.makeStatusError(status, nested, message, headers);
  }
}
