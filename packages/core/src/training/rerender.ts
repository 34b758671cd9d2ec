import type { Harness } from '../harness.js';
import type { Message, ToolSpec } from '../message.js';
import type { Task } from '../task.js';
import type { Trajectory } from '../trajectory.js';

/**
 * A trajectory's actions re-rendered under another harness (normally H0): its prompt, its codec,
 * its observation rules. Possible because variants are protocol-compliant: every action a variant
 * emits is one H0 can emit. Turns the codec could not decode carry no action and are left out;
 * the assistant's free text is kept only where the codec has room for it.
 */
export function rerenderTrajectory(
  trajectory: Trajectory,
  task: Task,
  harness: Harness,
  envTools: readonly ToolSpec[] = [],
): Message[] {
  const messages: Message[] = harness.start(task, envTools);
  for (const turn of trajectory.turns) {
    if (turn.formatError !== undefined || turn.actions.length === 0) continue;
    const thought = turn.response.toolCalls?.length ? turn.response.content : '';
    const assistant = harness.codec.encode(
      turn.actions.map((record) => record.action),
      thought,
    );
    messages.push(assistant);
    const callIds = assistant.toolCalls?.map((call) => call.id) ?? [];
    messages.push(
      ...harness.observe(
        turn.actions.map((record, index) => ({
          action: record.action,
          ...(callIds[index] ? { callId: callIds[index] } : {}),
          result: record.result,
        })),
      ),
    );
  }
  return messages;
}
