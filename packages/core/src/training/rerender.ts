import type { Harness } from '../harness.js';
import type { Message, ToolSpec } from '../message.js';
import type { Task } from '../task.js';
import type { Trajectory } from '../trajectory.js';

/**
 * A trajectory's actions re-rendered under another harness (normally H0): its prompt, its codec,
 * its observation rules. Possible because variants are protocol-compliant: every action a variant
 * emits is one H0 can emit. Turns the codec could not decode carry no action and are left out;
 * the assistant's free text is kept only where the codec has room for it. Under a codec that holds
 * one action per reply, a turn with several actions becomes one turn per action, each answered by
 * its own observation (the free text goes with the first).
 */
export function rerenderTrajectory(
  trajectory: Trajectory,
  task: Task,
  harness: Harness,
  envTools: readonly ToolSpec[] = [],
): Message[] {
  const messages: Message[] = harness.start(task, envTools);
  // A codec numbers the calls of one reply; across the conversation their ids must stay unique.
  let calls = 0;
  for (const turn of trajectory.turns) {
    if (turn.formatError !== undefined || turn.actions.length === 0) continue;
    const thought = turn.response.toolCalls?.length ? turn.response.content : '';
    const replies = harness.codec.oneActionPerTurn ? turn.actions.map((record) => [record]) : [turn.actions];
    for (const [index, records] of replies.entries()) {
      const encoded = harness.codec.encode(
        records.map((record) => record.action),
        index === 0 ? thought : '',
      );
      const assistant = encoded.toolCalls
        ? { ...encoded, toolCalls: encoded.toolCalls.map((call) => ({ ...call, id: `call_${calls++}` })) }
        : encoded;
      messages.push(assistant);
      const callIds = assistant.toolCalls?.map((call) => call.id) ?? [];
      messages.push(
        ...harness.observe(
          records.map((record, at) => ({
            action: record.action,
            ...(callIds[at] ? { callId: callIds[at] } : {}),
            result: record.result,
          })),
        ),
      );
    }
  }
  return messages;
}
