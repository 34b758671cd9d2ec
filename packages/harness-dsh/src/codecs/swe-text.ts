import type { Action, ActionCodec, AssistantMessage, DecodedTurn } from '@harness-s/core';

/** The command that submits in mini-swe-agent's text protocol. */
export const submitCommand = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT';

/**
 * mini-swe-agent's text protocol: every reply holds a THOUGHT and exactly one ```bash block with
 * one command; the command `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` (as its first line)
 * submits. The block becomes a `bash` action, the submit command a `submit` action.
 */
export const sweTextCodec: ActionCodec = {
  kind: 'swe-text',
  oneActionPerTurn: true,

  apiTools(): [] {
    return [];
  },

  decode(message: AssistantMessage): DecodedTurn {
    const blocks = [...message.content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)];
    if (blocks.length !== 1) {
      return {
        ok: false,
        error:
          `Please always provide EXACTLY ONE action in triple backticks, found ${blocks.length} actions.\n` +
          'If you want to end the task, please issue the following command: `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`\n' +
          'without any other command.\nElse, please format your response exactly as follows:\n\n' +
          'THOUGHT: Your reasoning and analysis here\n\n```bash\nyour_command_here\n```',
      };
    }
    const command = blocks[0]?.[1] ?? '';
    if (command.trimStart().split('\n')[0]?.trim() === submitCommand) {
      return { ok: true, actions: [{ action: { tool: 'submit', arguments: {} } }] };
    }
    return { ok: true, actions: [{ action: { tool: 'bash', arguments: { command } } }] };
  },

  encode(actions: readonly Action[], thought = ''): AssistantMessage {
    const parts = [`THOUGHT: ${thought || 'Next step.'}`];
    for (const action of actions) {
      if (action.tool === 'submit') parts.push(`\`\`\`bash\n${submitCommand}\n\`\`\``);
      else if (action.tool === 'bash') parts.push(`\`\`\`bash\n${String(action.arguments['command'] ?? '')}\n\`\`\``);
      // The protocol has no other action; say it so a reader of the transcript sees why.
      else parts.push(`Action ${action.tool} ${JSON.stringify(action.arguments)} has no form in this protocol.`);
    }
    return { role: 'assistant', content: parts.join('\n\n') };
  },
};
