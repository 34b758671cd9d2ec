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
import { codecFor } from './codecs/index.js';

/** The marker that replaces observations dropped by `keepLastObservations`. */
export const elidedObservation = '[earlier observation elided]';

/**
 * Builds a runnable harness from a spec: renders the prompt with its directives, applies the
 * context rules, and answers actions with observation messages in the codec's shape.
 */
export function createHarness(input: unknown, where = 'harness spec'): Harness {
  const parsed = HarnessSpec.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(`${where}: ${formatZodError(parsed.error)}`, {
      code: 'bad-harness-spec',
      cause: parsed.error,
    });
  }
  const spec = parsed.data;
  const codec = codecFor(spec.codec.kind);
  const { maxObservationChars, truncationMarker, keepLastObservations } = spec.context;

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
      return transcript.map((message, index) =>
        elided.has(index) ? ({ ...message, content: elidedObservation } as Message) : message,
      );
    },

    observe(executed: readonly ExecutedAction[]): Message[] {
      if (codec.kind === 'tool-calls') {
        return executed.map((item) => ({
          role: 'tool' as const,
          toolCallId: item.callId ?? 'call_0',
          content: truncate(item.result.observation),
        }));
      }
      return [{ role: 'user', content: executed.map((item) => truncate(item.result.observation)).join('\n') }];
    },

    formatError(error: string): Message[] {
      return [{ role: 'user', content: error }];
    },
  };
}
