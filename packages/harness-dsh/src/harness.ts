import {
  ConfigError,
  type ExecutedAction,
  formatZodError,
  type Harness,
  HarnessSpec,
  type Message,
  type Task,
  type ToolSpec,
} from '@harness-s/core';
import { createCodec } from './codecs/index.js';
import { createMechanics } from './variants/runtime.js';

/** The marker that replaces observations dropped by `keepLastObservations`. */
export const elidedObservation = '[earlier observation elided]';

/**
 * Builds a runnable harness from a spec: renders the prompt with its directives, applies the
 * context rules, and answers actions with observation messages in the codec's shape. A variant's
 * tool transforms and execution rules (see `variants/runtime.ts`) run here too: transforms expand
 * decoded actions into base actions or act before the first turn, rules add messages after turns.
 */
export function createHarness(input: unknown, where = 'harness spec'): Harness {
  if (input === undefined || input === null)
    throw new ConfigError(
      `${where}: no spec given (${String(input)}); builtInHarnessSpec(env, name) returns undefined for a name the environment has not`,
      { code: 'bad-harness-spec' },
    );
  const parsed = HarnessSpec.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(`${where}: ${formatZodError(parsed.error)}`, {
      code: 'bad-harness-spec',
      cause: parsed.error,
    });
  }
  const spec = parsed.data;
  let mechanics: ReturnType<typeof createMechanics>;
  try {
    mechanics = createMechanics(spec, createCodec(spec.codec));
  } catch (error) {
    // A field the schema let through but the codecs or transforms refuse: named in the spec's source.
    if (error instanceof ConfigError)
      throw new ConfigError(`${where}: ${error.message}`, { code: error.code, cause: error });
    throw error;
  }
  const codec = mechanics.codec;
  const { maxObservationChars, truncationMarker, keepLastObservations, elidedSummaryChars } = spec.context;

  const truncate = (text: string): string =>
    maxObservationChars !== null && text.length > maxObservationChars
      ? text.slice(0, maxObservationChars) + truncationMarker
      : text;

  const systemPrompt = (): string => {
    if (spec.prompt.directives.length === 0) return spec.prompt.system;
    const rules = spec.prompt.directives.map((directive) => `- ${directive.text}`).join('\n');
    return `${spec.prompt.system}\n\nRules:\n${rules}`;
  };

  return {
    spec,
    codec,

    start(task: Task, _envTools: readonly ToolSpec[]): Message[] {
      return [
        { role: 'system', content: systemPrompt() },
        { role: 'user', content: spec.prompt.task.replaceAll('{{instruction}}', task.instruction) },
      ];
    },

    render(transcript: readonly Message[]): Message[] {
      if (keepLastObservations === null) return [...transcript];
      // Observations are every tool or user message after the task message (index 1).
      const observationIndexes = transcript
        .map((message, index) => (index > 1 && (message.role === 'tool' || message.role === 'user') ? index : -1))
        .filter((index) => index >= 0);
      const elided = new Set(
        observationIndexes.slice(0, Math.max(0, observationIndexes.length - keepLastObservations)),
      );
      const summary = (content: string): string =>
        elidedSummaryChars === undefined
          ? elidedObservation
          : `${elidedObservation} ${content.slice(0, elidedSummaryChars).replace(/\s+/g, ' ')}${content.length > elidedSummaryChars ? '...' : ''}`;
      return transcript.map((message, index) =>
        elided.has(index) ? ({ ...message, content: summary(message.content) } as Message) : message,
      );
    },

    observe(executed: readonly ExecutedAction[]): Message[] {
      const text = (item: ExecutedAction): string => {
        const label = mechanics.label(item.action);
        return label ? `${label}\n${truncate(item.result.observation)}` : truncate(item.result.observation);
      };
      const answers: Message[] = [];
      if (executed.length > 0 && executed.every((item) => item.callId !== undefined)) {
        // One tool message per call; actions a transform expanded a call into share its answer.
        for (const item of executed) {
          const previous = answers.at(-1);
          if (previous?.role === 'tool' && previous.toolCallId === item.callId) previous.content += `\n${text(item)}`;
          else answers.push({ role: 'tool', toolCallId: item.callId ?? 'call_0', content: text(item) });
        }
      } else {
        answers.push({ role: 'user', content: executed.map(text).join('\n') });
      }
      return [...answers, ...mechanics.afterTurn(executed)];
    },

    formatError(error: string): Message[] {
      return [{ role: 'user', content: error }];
    },

    ...(mechanics.prelude ? { prelude: mechanics.prelude } : {}),
  };
}
