import { ConfigError, type Harness, type Policy, type Trajectory } from '@harness-s/core';

/**
 * Asks a chat policy (an OpenAI-compatible endpoint behind the core `Policy` interface) one
 * question and returns its text. Policies that need a privileged plan are not chat models.
 */
export async function askPolicy(policy: Policy, harness: Harness, system: string, user: string): Promise<string> {
  if (policy.needsPlan !== false) {
    throw new ConfigError(`policy '${policy.id}' is not a chat model; pass an OpenAI-compatible policy`, {
      code: 'not-a-chat-policy',
    });
  }
  const session = policy.startEpisode({
    task: { id: 'analysis', env: harness.spec.env, split: 'analysis', instruction: user, tags: [] },
    harness,
    envTools: [],
    seed: 0,
  });
  const response = await session.respond({
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    tools: [],
  });
  return response.message.content;
}

/** The JSON object in a model's answer (bare, or inside a ```json fence), or an Error saying why not. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1];
  const body = fenced ?? text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) return new Error('no JSON object in the answer');
  try {
    return JSON.parse(body.slice(start, end + 1));
  } catch (error) {
    return new Error(`the JSON does not parse: ${(error as Error).message}`);
  }
}

/** A compact, readable account of a trajectory for a model: task, turns, errors, stop reason, checks. */
export function describeTrajectory(trajectory: Trajectory, maxObservationChars = 240): string {
  const instruction = trajectory.messages.find((message, index) => index > 0 && message.role === 'user')?.content ?? '';
  const lines = [`Task: ${instruction.slice(0, 600)}`];
  for (const turn of trajectory.turns) {
    if (turn.formatError) lines.push(`Turn ${turn.index}: no valid action (${turn.formatError.slice(0, 120)})`);
    for (const record of turn.actions) {
      const observation = record.result.observation.slice(0, maxObservationChars);
      lines.push(
        `Turn ${turn.index}${turn.origin === 'harness' ? ' (run by the harness)' : ''}: ${record.action.tool} ${JSON.stringify(record.action.arguments).slice(0, 300)}`,
        `  -> ${record.result.error ? `ERROR ${record.result.error.kind}: ` : ''}${observation}`,
      );
    }
  }
  lines.push(`Stopped: ${trajectory.stopReason}`);
  for (const check of trajectory.evaluation?.checks ?? []) {
    lines.push(
      `Check ${check.name}: ${check.passed ? 'passed' : 'FAILED'}${check.detail ? ` (${check.detail.slice(0, 200)})` : ''}`,
    );
  }
  return lines.join('\n');
}
