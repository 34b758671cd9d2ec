import type { Action, AssistantMessage, EpisodeContext, Harness, Message } from '@harness-s/core';

// What following a transcript (teacher forcing) reads of its messages, apart from the session.

export interface FollowOptions {
  /**
   * The variant whose attempt the transcript re-renders under this harness (a training example in
   * H0's context). Its tool transforms made some of the actions the transcript shows as the
   * policy's: a call one of them rewrote is matched as rewritten, and under a protocol of one action
   * per reply, where the actions a transform added come as replies of their own, a reply the plan
   * does not have is passed over, not refused.
   */
  rerenderedFrom?: Harness;
}

/**
 * What is left of `whole` after `part`, when both are one text argument of one tool and `whole`
 * holds `part` and more after a blank line (a code block that runs several of the plan's actions
 * in a row, as a turn a tool transform expanded reads re-rendered); undefined otherwise.
 */
export function remainderAfter(whole: Action, part: Action): Action | undefined {
  const keys = Object.keys(whole.arguments);
  const [key] = keys;
  if (whole.tool !== part.tool || keys.length !== 1 || key === undefined) return undefined;
  const [text, piece] = [whole.arguments[key], part.arguments[key]];
  if (typeof text !== 'string' || typeof piece !== 'string' || Object.keys(part.arguments).length !== 1)
    return undefined;
  if (!text.startsWith(`${piece}\n\n`)) return undefined;
  return { tool: whole.tool, arguments: { [key]: text.slice(piece.length + 2) } };
}

/** The action's one text argument after its first blank line, if it has one and that. */
export function afterFirstPiece(action: Action): Action | undefined {
  const entries = Object.entries(action.arguments);
  const [entry] = entries;
  if (entries.length !== 1 || !entry || typeof entry[1] !== 'string') return undefined;
  const cut = entry[1].indexOf('\n\n');
  return cut < 0 ? undefined : { tool: action.tool, arguments: { [entry[0]]: entry[1].slice(cut + 2) } };
}

/** Two assistant messages say the same: the same text and the same calls, whatever their ids. */
export function sameTurn(a: AssistantMessage, b: AssistantMessage): boolean {
  const calls = (message: AssistantMessage) =>
    JSON.stringify((message.toolCalls ?? []).map((call) => [call.name, call.arguments]));
  return a.content.trim() === b.content.trim() && calls(a) === calls(b);
}

/**
 * The policy's turns in a conversation under `context.harness`: every assistant message but a
 * harness's prelude, each with the messages before it, rendered by the harness when `render` says
 * so (a full transcript; a conversation as sent to a model is rendered already).
 */
export function policyTurns(
  context: EpisodeContext,
  messages: readonly Message[],
  render: boolean,
): Array<{ context: Message[]; observed: AssistantMessage }> {
  let skipPrelude = (context.harness.prelude?.(context.task, context.envTools) ?? null) !== null;
  return messages.flatMap((message, index) => {
    if (message.role !== 'assistant') return [];
    if (skipPrelude) {
      skipPrelude = false;
      return [];
    }
    const before = messages.slice(0, index);
    return [{ context: render ? context.harness.render(before) : before, observed: message }];
  });
}
