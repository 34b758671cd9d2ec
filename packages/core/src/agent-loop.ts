import type { Environment, Episode } from './environment.js';
import { describeError, InfrastructureError, InputError } from './errors.js';
import { Evaluation } from './evaluation.js';
import type { DecodedAction, ExecutedAction, Harness } from './harness.js';
import { formatZodError } from './jsonl.js';
import { addUsage, type Message, type Usage, zeroUsage } from './message.js';
import type { Policy } from './policy.js';
import type { Task } from './task.js';
import type { ActionRecord, StopReason, Trajectory, TurnRecord } from './trajectory.js';
import { trajectoryId } from './trajectory.js';

export interface EpisodeRequest<T extends Task = Task> {
  environment: Environment<T>;
  task: T;
  harness: Harness;
  policy: Policy;
  runId: string;
  attempt: number;
  seed: number;
  signal?: AbortSignal;
}

/** The parts of a trajectory one try of the agent loop produces. */
type LoopOutcome = Pick<Trajectory, 'messages' | 'tools' | 'turns' | 'stopReason' | 'evaluation' | 'usage' | 'timings'>;

/**
 * Runs one episode: the harness renders the context, the policy answers, the codec decodes the
 * answer into actions, the episode steps, the harness's context and execution rules apply; the
 * episode is evaluated and always closed. A harness with a prelude (a tool transform that acts
 * before the first turn) runs it first, recorded as a turn of origin `harness`.
 *
 * Throws InfrastructureError when the environment or the policy server fails; the caller
 * (`runAttempt`) retries on fresh resources.
 */
export async function runEpisodeOnce<T extends Task>(request: EpisodeRequest<T>): Promise<LoopOutcome> {
  const { environment, task, harness, policy, signal } = request;
  const startedAt = new Date();
  const openStart = performance.now();
  const episode: Episode<T> = await environment.open(task, signal ? { signal } : {});
  const openMs = performance.now() - openStart;
  try {
    const session = policy.startEpisode({
      task,
      harness,
      envTools: episode.tools,
      seed: request.seed,
      ...(policy.needsPlan === 'oracle' ? { plan: environment.oraclePlan(task) } : {}),
      ...(policy.needsPlan === 'empty' ? { plan: environment.emptyPlan(task) } : {}),
    });
    const apiTools = harness.codec.apiTools(episode.tools);
    const messages: Message[] = harness.start(task, episode.tools);
    const turns: TurnRecord[] = [];
    const { maxSteps, maxFormatErrors } = harness.spec.execution;
    let usage: Usage = zeroUsage();
    let consecutiveFormatErrors = 0;
    let stopReason: StopReason = 'step-limit';
    let policyTurns = 0;

    const prelude = harness.prelude?.(task, episode.tools) ?? null;
    if (prelude) {
      const turn: TurnRecord = {
        index: 0,
        origin: 'harness',
        response: {
          content: prelude.message.content,
          ...(prelude.message.toolCalls ? { toolCalls: prelude.message.toolCalls } : {}),
        },
        usage: zeroUsage(),
        latencyMs: 0,
        actions: [],
      };
      turns.push(turn);
      messages.push(prelude.message);
      const { executed, done } = await executeActions(episode, prelude.actions, turn);
      messages.push(...harness.observe(executed));
      if (done) stopReason = 'done';
    }

    while (stopReason !== 'done' && policyTurns < maxSteps) {
      policyTurns += 1;
      signal?.throwIfAborted();
      const policyStart = performance.now();
      const response = await session.respond({
        messages: harness.render(messages),
        tools: apiTools,
        ...(signal ? { signal } : {}),
      });
      const latencyMs = performance.now() - policyStart;
      usage = addUsage(usage, response.usage);
      messages.push(response.message);
      const turn: TurnRecord = {
        index: turns.length,
        response: {
          content: response.message.content,
          ...(response.message.toolCalls ? { toolCalls: response.message.toolCalls } : {}),
        },
        usage: response.usage,
        latencyMs,
        ...(response.decisions?.length ? { decisions: response.decisions } : {}),
        ...(response.completionTokenIds ? { completionTokenIds: response.completionTokenIds } : {}),
        ...(response.completionLogprobs ? { completionLogprobs: response.completionLogprobs } : {}),
        ...(response.cutOff ? { cutOff: true as const } : {}),
        ...(response.reasoning ? { reasoning: response.reasoning } : {}),
        actions: [],
      };
      turns.push(turn);

      const decoded = harness.codec.decode(response.message, episode.tools);
      if (!decoded.ok) {
        turn.formatError = decoded.error;
        messages.push(...harness.formatError(decoded.error));
        consecutiveFormatErrors += 1;
        if (consecutiveFormatErrors >= maxFormatErrors) {
          stopReason = 'format-error-limit';
          break;
        }
        continue;
      }
      consecutiveFormatErrors = 0;

      const { executed, done } = await executeActions(episode, decoded.actions, turn);
      messages.push(...harness.observe(executed));
      if (done) {
        stopReason = 'done';
        break;
      }
    }

    const evaluateStart = performance.now();
    const evaluation = checkedEvaluation(await episode.evaluate(), environment.id, task.id);
    const evaluateMs = performance.now() - evaluateStart;
    return {
      messages,
      tools: apiTools,
      turns,
      stopReason,
      evaluation,
      usage,
      timings: {
        startedAt: startedAt.toISOString(),
        openMs,
        evaluateMs,
        totalMs: performance.now() - openStart,
      },
    };
  } finally {
    await episode.close();
  }
}

/**
 * An episode's evaluation, checked: a reward outside [0, 1] or a missing field is a fault of the
 * environment, said with its id and the task's, before any run records or trains on it.
 */
function checkedEvaluation(value: unknown, envId: string, taskId: string): Evaluation {
  const parsed = Evaluation.safeParse(value);
  // What the environment returned, as it returned it (with `details` defaulted).
  if (parsed.success) return { ...(value as Evaluation), details: parsed.data.details };
  throw new InputError(
    `environment ${envId}: evaluate() of task ${taskId} returned no valid evaluation: ${formatZodError(parsed.error)}`,
    { code: 'bad-evaluation' },
  );
}

/**
 * Steps the episode through a turn's actions in order, recording each in the turn, until one ends
 * the episode. Calls the harness answers itself (`harnessResult`) are not environment actions.
 */
async function executeActions<T extends Task>(
  episode: Episode<T>,
  actions: readonly DecodedAction[],
  turn: TurnRecord,
): Promise<{ executed: ExecutedAction[]; done: boolean }> {
  const executed: ExecutedAction[] = [];
  for (const decodedAction of actions) {
    if (decodedAction.harnessResult) {
      executed.push({ ...decodedAction, result: decodedAction.harnessResult });
      continue;
    }
    const stepStart = performance.now();
    const result = await episode.step(decodedAction.action);
    const record: ActionRecord = {
      action: decodedAction.action,
      ...(decodedAction.callId ? { callId: decodedAction.callId } : {}),
      result,
      latencyMs: performance.now() - stepStart,
    };
    turn.actions.push(record);
    executed.push({ ...decodedAction, result });
    if (result.done) return { executed, done: true };
  }
  return { executed, done: false };
}

/** Extra tries of an attempt after an infrastructure error, unless told otherwise. */
export const defaultMaxInfraRetries = 2;

export interface AttemptOptions {
  /** Extra tries after an infrastructure error (default 2). */
  maxInfraRetries?: number;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (error: InfrastructureError, nextTry: number) => void;
}

/**
 * Runs one attempt with retries: an infrastructure error reopens the episode on fresh resources;
 * after the last try the attempt is recorded with `stopReason: 'infrastructure-error'` and no
 * evaluation, so it is never scored. Errors of other categories (bugs, config) propagate, and so
 * does the request's abort: an infrastructure error once its signal is aborted (a sandbox closed by
 * the interrupt) rethrows the signal's reason.
 */
export async function runAttempt<T extends Task>(
  request: EpisodeRequest<T>,
  options: AttemptOptions = {},
): Promise<Trajectory> {
  const maxRetries = options.maxInfraRetries ?? defaultMaxInfraRetries;
  const infraErrors: Trajectory['infraErrors'] = [];
  const base = {
    schemaVersion: 1 as const,
    id: trajectoryId(request.task.id, request.harness.spec.id, request.attempt),
    runId: request.runId,
    env: request.environment.id,
    split: request.task.split,
    taskId: request.task.id,
    harnessId: request.harness.spec.id,
    policyId: request.policy.id,
    policyVersion: request.policy.version,
    attempt: request.attempt,
    seed: request.seed,
  };
  const startedAt = new Date().toISOString();
  const start = performance.now();
  for (let attemptTry = 0; ; attemptTry += 1) {
    try {
      const outcome = await runEpisodeOnce(request);
      return { ...base, ...outcome, infraErrors };
    } catch (error) {
      if (!InfrastructureError.isInstance(error)) throw error;
      // Cut short by an interrupt (its sandbox closed under it): no outage, and nothing to record.
      if (request.signal?.aborted) throw request.signal.reason ?? error;
      infraErrors.push({ try: attemptTry, code: error.code, message: describeError(error) });
      if (attemptTry >= maxRetries) {
        return {
          ...base,
          messages: [],
          turns: [],
          stopReason: 'infrastructure-error',
          evaluation: null,
          usage: zeroUsage(),
          timings: { startedAt, openMs: 0, evaluateMs: 0, totalMs: performance.now() - start },
          infraErrors,
        };
      }
      options.onRetry?.(error, attemptTry + 1);
    }
  }
}
