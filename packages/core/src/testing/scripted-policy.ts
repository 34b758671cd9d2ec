import type { AssistantMessage } from '../message.js';
import type { Policy, PolicyRequest } from '../policy.js';

/**
 * A deterministic policy for tests: answers each turn with the next scripted message (or the
 * result of a function of the request), and records every request it saw.
 */
export function createScriptedPolicy(
  script: ReadonlyArray<AssistantMessage | ((request: PolicyRequest) => AssistantMessage | Promise<AssistantMessage>)>,
): Policy & { requests: PolicyRequest[] } {
  const requests: PolicyRequest[] = [];
  return {
    id: 'scripted',
    version: 'scripted',
    needsPlan: false,
    requests,
    describe: () => ({ kind: 'scripted', turns: script.length }),
    startEpisode() {
      let turn = 0;
      return {
        async respond(request) {
          requests.push(request);
          const entry = script[Math.min(turn, script.length - 1)];
          turn += 1;
          if (entry === undefined)
            return { message: { role: 'assistant', content: '' }, usage: { promptTokens: 0, completionTokens: 0 } };
          const message = typeof entry === 'function' ? await entry(request) : entry;
          return { message, usage: { promptTokens: 10, completionTokens: 5 } };
        },
      };
    },
  };
}

/** An assistant message calling one tool, as a tool-calls codec would read it. */
export const callTool = (tool: string, args: Record<string, unknown> = {}, content = ''): AssistantMessage => ({
  role: 'assistant',
  content,
  toolCalls: [{ id: `call_${tool}`, name: tool, arguments: JSON.stringify(args) }],
});
