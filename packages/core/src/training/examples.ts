import { type ChatMessage, type ChatTool, toChatMessages, toChatTools } from '../chat-format.js';
import { ConfigError } from '../errors.js';
import type { Harness } from '../harness.js';
import type { AssistantMessage, Message } from '../message.js';
import type { Task } from '../task.js';
import type { Trajectory, TurnRecord } from '../trajectory.js';
import { rerenderTrajectory } from './rerender.js';
import type { RescueContext } from './trainer.js';

/**
 * One training example for an external trainer: a line of `harness-s export` and of a run's
 * `batches/`. Messages and tools are in the chat completions format (what the model is sent, and
 * what chat templates read).
 */
export interface TrainingExample {
  groupId: string;
  step: number;
  /** The attempt's id in the run's `trajectories.jsonl`. */
  attemptId: string;
  taskId: string;
  harnessId: string;
  /** The policy version that sampled the attempt. */
  policyVersion: string;
  /**
   * Which rendering `messages` hold: `h0`, H0's (an attempt under H0, or its actions re-rendered
   * under H0); `variant`, as rendered under the variant that made it.
   */
  context: RescueContext;
  /**
   * An assistant message whose sampled turn a reasoning model's server returned thinking for
   * carries it as `reasoning_content` (what Qwen3's and DeepSeek's chat templates render), so the
   * text a template makes of `messages` is what was sampled, as `completionTokenIds` are.
   */
  messages: ChatMessage[];
  /**
   * The tools offered to the model with `messages`; null for runs recorded before trajectories
   * kept them. A variant keeps its base harness's codec, so its tools are H0's too.
   */
  tools: ChatTool[] | null;
  /**
   * Per assistant message of `messages`, in order, the token ids of the completion sampled as that
   * message, where the server returned them. Null where it returned none, and for a message
   * re-rendered under H0 whose text is not the reply as sampled (free text the codec has no room
   * for, a reply split into one per action): its tokens are not known without the tokenizer.
   */
  completionTokenIds: Array<number[] | null>;
  /**
   * Per assistant message, like `completionTokenIds`, its tokens' log-probabilities under the
   * sampling policy (in the context the attempt was sampled in), where returned.
   */
  completionLogprobs: Array<number[] | null>;
  /** Its group-relative advantage; 0 for an attempt the update did not use (`trained` false). */
  advantage: number;
  reward: number;
  /**
   * Whether the run's update used the attempt. False only in exports with `all`: attempts of a
   * failed group that rescue replaced, or of a group dropped for want of spread.
   */
  trained: boolean;
}

/**
 * The training example of one retained attempt, its messages rendered as `context` says. Given the
 * run's H0 id, an attempt under H0 is labelled `h0` whatever the context: its rendering is H0's.
 */
export function trainingExample(
  trajectory: Trajectory,
  example: {
    groupId: string;
    step: number;
    context: RescueContext;
    messages: readonly Message[];
    advantage: number;
    h0Id?: string | undefined;
    /** Default true: an attempt of the update. */
    trained?: boolean;
  },
): TrainingExample {
  const sampled = sampledTurns(trajectory, example.messages);
  let assistant = 0;
  const messages = toChatMessages(example.messages).map((message) => {
    if (message.role !== 'assistant') return message;
    const reasoning = sampled[assistant++]?.reasoning;
    return reasoning ? { ...message, reasoning_content: reasoning } : message;
  });
  return {
    groupId: example.groupId,
    step: example.step,
    attemptId: trajectory.id,
    taskId: trajectory.taskId,
    harnessId: trajectory.harnessId,
    policyVersion: trajectory.policyVersion,
    context: trajectory.harnessId === example.h0Id ? 'h0' : example.context,
    messages,
    tools: trajectory.tools ? toChatTools(trajectory.tools) : null,
    completionTokenIds: sampled.map((turn) => turn?.completionTokenIds ?? null),
    completionLogprobs: sampled.map((turn) => turn?.completionLogprobs ?? null),
    advantage: example.advantage,
    reward: trajectory.evaluation?.reward ?? 0,
    trained: example.trained ?? true,
  };
}

/**
 * Per assistant message of `messages`, the turn whose reply was sampled as it, or null: each
 * message is matched to the next turn, in order, whose reply has the same text and calls (their ids
 * aside: re-rendering numbers them anew). As recorded, that is every turn in turn; re-rendered,
 * turns that failed to parse have no message, and a message changed by the codec has no turn.
 */
function sampledTurns(trajectory: Trajectory, messages: readonly Message[]): Array<TurnRecord | null> {
  const turns = trajectory.turns;
  let next = 0;
  const matched: Array<TurnRecord | null> = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const at = turns.findIndex((turn, index) => index >= next && sameReply(turn.response, message));
    matched.push(at === -1 ? null : (turns[at] ?? null));
    if (at !== -1) next = at + 1;
  }
  return matched;
}

const sameReply = (response: TurnRecord['response'], message: AssistantMessage): boolean => {
  const calls = response.toolCalls ?? [];
  const others = message.toolCalls ?? [];
  return (
    response.content === message.content &&
    calls.length === others.length &&
    calls.every((call, index) => call.name === others[index]?.name && call.arguments === others[index]?.arguments)
  );
};

export interface TrainingExamplesOptions {
  /** The run's tasks (any that its attempts name), to re-render attempts under H0. */
  tasks: Iterable<Task>;
  /** The run's base harness. */
  h0: Harness;
  /**
   * `h0`: every attempt re-rendered under H0's prompt and codec (an attempt under H0 reads as it
   * was); `variant`: every attempt as it was rendered.
   */
  context: RescueContext;
  /** Also the attempts that were not retained (replaced by a rescue group). Default: retained only. */
  all?: boolean;
}

/**
 * A training run's attempts as training examples, in the order given (what `harness-s export`
 * writes): the retained ones with their advantages, or with `all` every scored training attempt.
 * Give it `readTrajectories(runDir)`. An attempt whose task is missing from `tasks` is refused by
 * name when it must be re-rendered.
 */
export function trainingExamples(
  trajectories: Iterable<Trajectory>,
  options: TrainingExamplesOptions,
): TrainingExample[] {
  const tasks = new Map<string, Task>();
  for (const task of options.tasks) tasks.set(task.id, task);
  const examples: TrainingExample[] = [];
  for (const trajectory of trajectories) {
    const example = exampleOfAttempt(trajectory, { ...options, task: tasks.get(trajectory.taskId) });
    if (example) examples.push(example);
  }
  return examples;
}

/**
 * Whether `trainingExamples` writes the attempt: a scored training attempt, retained and in the
 * update (not dropped for want of spread) unless `all`.
 */
export const isExampleAttempt = (trajectory: Trajectory, all: boolean): boolean =>
  trajectory.training !== undefined &&
  trajectory.evaluation !== null &&
  trajectory.evaluation !== undefined &&
  (all || (trajectory.training.retained && !trajectory.training.dropped));

/** Whether `trainingExamples` must re-render the attempt under H0, and so needs its task. */
export const needsRerender = (
  trajectory: Trajectory,
  options: Pick<TrainingExamplesOptions, 'h0' | 'context'>,
): boolean => options.context === 'h0' && trajectory.harnessId !== options.h0.spec.id;

/**
 * The training example of one attempt as `trainingExamples` writes it (for a run read one attempt
 * at a time, e.g. with `streamTrajectories`), or undefined for an attempt it leaves out. `task` is
 * the attempt's, needed where it is re-rendered under H0 (`needsRerender`).
 */
export function exampleOfAttempt(
  trajectory: Trajectory,
  options: Omit<TrainingExamplesOptions, 'tasks'> & { task: Task | undefined },
): TrainingExample | undefined {
  const training = trajectory.training;
  if (!training || !isExampleAttempt(trajectory, options.all ?? false)) return undefined;
  // An attempt under H0 is H0's rendering as recorded; another is re-rendered under H0 when asked.
  let messages = trajectory.messages;
  // The wrong task would render another task's prompt over this attempt's actions, without a word.
  if (options.task && options.task.id !== trajectory.taskId)
    throw new ConfigError(
      `exampleOfAttempt: ${trajectory.id} is an attempt at task ${trajectory.taskId}, and the task given is ${options.task.id}`,
      { code: 'wrong-task' },
    );
  if (needsRerender(trajectory, options)) {
    if (!options.task)
      throw new ConfigError(
        `task ${trajectory.taskId} of ${trajectory.id} (split ${trajectory.split}) is not among the tasks given, so it cannot be re-rendered under H0`,
        { code: 'missing-task' },
      );
    messages = rerenderTrajectory(trajectory, options.task, options.h0);
  }
  return trainingExample(trajectory, {
    groupId: training.groupId,
    step: training.step,
    context: options.context,
    h0Id: options.h0.spec.id,
    messages,
    advantage: training.advantage ?? 0,
    trained: training.retained && !training.dropped,
  });
}
