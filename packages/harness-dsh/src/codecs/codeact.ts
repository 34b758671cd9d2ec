import type { Action, ActionCodec, AssistantMessage, DecodedAction, DecodedTurn, ToolSpec } from '@harness-s/core';
import { z } from 'zod';
import { parseCodecOptions } from './codec-options.js';
import { toolCallsCodec } from './tool-calls.js';

/** Settings of the code-act codec (`codec.options` of a spec). */
export const CodeActOptions = z.strictObject({
  /** The environment tool that `finish` stands for (e.g. `commit_final_answer`, `submit`). */
  finishTool: z.string().min(1),
});
export type CodeActOptions = z.infer<typeof CodeActOptions>;

const thinkTool: ToolSpec = {
  name: 'think',
  description: 'Think out loud: plan, reason about results. Changes nothing.',
  parameters: { type: 'object', properties: { thought: { type: 'string' } }, required: ['thought'] },
};

/**
 * Code-act style tool calls: the environment's tools, plus `think` (answered by the harness, no
 * environment step) and `finish` (the environment's final tool under a uniform name).
 */
export function createCodeActCodec(input: unknown): ActionCodec {
  const { finishTool } = parseCodecOptions(CodeActOptions, input);
  return {
    kind: 'codeact',

    apiTools(envTools: readonly ToolSpec[]): ToolSpec[] {
      const final = envTools.find((tool) => tool.name === finishTool);
      const finish: ToolSpec = {
        name: 'finish',
        description: final?.description ?? 'Finish the task.',
        parameters: final?.parameters ?? { type: 'object', properties: {} },
      };
      return [thinkTool, ...envTools.filter((tool) => tool.name !== finishTool), finish];
    },

    decode(message: AssistantMessage, envTools: readonly ToolSpec[]): DecodedTurn {
      const decoded = toolCallsCodec.decode(message, envTools);
      if (!decoded.ok) return decoded;
      const actions: DecodedAction[] = decoded.actions.map((item) => {
        if (item.action.tool === 'think') return { ...item, harnessResult: { observation: 'Noted.', done: false } };
        if (item.action.tool === 'finish') return { ...item, action: { ...item.action, tool: finishTool } };
        return item;
      });
      return { ok: true, actions };
    },

    encode(actions: readonly Action[], thought = ''): AssistantMessage {
      const calls: Action[] = [
        ...(thought ? [{ tool: 'think', arguments: { thought } }] : []),
        ...actions.map((action) => (action.tool === finishTool ? { ...action, tool: 'finish' } : action)),
      ];
      return { ...toolCallsCodec.encode(calls), content: '' };
    },
  };
}
