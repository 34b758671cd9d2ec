import type { ExecutedAction, Harness } from '../harness.js';
import type { HarnessSpec } from '../harness-spec.js';
import type { AssistantMessage, Message } from '../message.js';

/** A minimal tool-calls harness spec for the counter environment, with these fields changed. */
export function plainHarnessSpec(changes: Partial<HarnessSpec> = {}): HarnessSpec {
  return {
    schemaVersion: 1,
    id: 'plain',
    family: 'test',
    env: 'counter',
    parent: null,
    direction: null,
    description: 'test harness',
    prompt: { system: 'You are a test agent.', task: '{{instruction}}', directives: [] },
    codec: { kind: 'tool-calls' },
    tools: [],
    context: { maxObservationChars: null, truncationMarker: '', keepLastObservations: null },
    execution: { maxSteps: 5, maxFormatErrors: 2 },
    ...changes,
  };
}

/** A minimal tool-calls harness for core tests (the real harnesses live in the harness package). */
export function createPlainHarness(execution: Partial<HarnessSpec['execution']> = {}): Harness {
  const base = plainHarnessSpec();
  const spec = plainHarnessSpec({ execution: { ...base.execution, ...execution } });
  return {
    spec,
    codec: {
      kind: 'tool-calls',
      apiTools: (tools) => [...tools],
      decode(message: AssistantMessage) {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { ok: false, error: 'no tool call' };
        return {
          ok: true,
          actions: calls.map((call) => ({
            action: { tool: call.name, arguments: JSON.parse(call.arguments) },
            callId: call.id,
          })),
        };
      },
      encode: (actions, thought = '') => ({
        role: 'assistant',
        content: thought,
        toolCalls: actions.map((action, index) => ({
          id: `call_${index}`,
          name: action.tool,
          arguments: JSON.stringify(action.arguments),
        })),
      }),
    },
    start: (task) => [
      { role: 'system', content: spec.prompt.system },
      { role: 'user', content: task.instruction },
    ],
    render: (transcript) => [...transcript],
    observe: (executed: readonly ExecutedAction[]): Message[] =>
      executed.map((item) => ({ role: 'tool', toolCallId: item.callId ?? 'call_0', content: item.result.observation })),
    formatError: (error) => [{ role: 'user', content: error }],
  };
}
