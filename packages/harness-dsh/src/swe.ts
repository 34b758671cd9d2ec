import type { HarnessSpec } from '@harness-s/core';

const workflow = `## Recommended Workflow
1. Analyze the codebase by finding and reading relevant files
2. Create a script to reproduce the issue
3. Edit the source code to resolve the issue
4. Verify your fix works by running your script again
5. Test edge cases to ensure your fix is robust

## Important Boundaries
- MODIFY: regular source code files in the repository (the current directory)
- DO NOT MODIFY: tests, configuration files (pyproject.toml, setup.cfg, package.json, etc.)

## Command Execution Rules
You are operating in an environment where
1. you run one command at a time,
2. the system executes it in a fresh subshell at the repository root and returns the result,
3. you see the output and issue your next command.
Directory or environment variable changes are not persistent: every action runs in a new
subshell. Commands that take too long are killed, and long outputs are cut to their beginning and end.`;

const toolCallsSystem = `You are a helpful assistant that can interact multiple times with a computer shell to solve programming tasks.
Run one command per turn with the bash tool. Explain your reasoning before each command.
When you are done, and only then, call the submit tool: your changes to the repository are your answer, and you cannot continue working after submitting.`;

const textSystem = `You are a helpful assistant that can interact multiple times with a computer shell to solve programming tasks.
Your response must contain exactly ONE bash code block with ONE command (or commands connected with && or ||).

Include a THOUGHT section before your command where you explain your reasoning process.
Format your response as shown in <format_example>.

<format_example>
THOUGHT: Your reasoning and analysis here

\`\`\`bash
your_command_here
\`\`\`
</format_example>

Failure to follow these rules will cause your response to be rejected.
When you are done, and only then, issue \`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\` as your only command: your changes to the repository are your answer, and you cannot continue working after that.`;

const taskTemplate = `<pr_description>
Consider the following PR description:
{{instruction}}
</pr_description>

<instructions>
# Task Instructions

You're a software engineer interacting continuously with a computer by submitting commands.
Your task is to make changes to non-test files in the current directory in order to fix the issue described in the PR description, in a way that is general and consistent with the codebase.

${workflow}
</instructions>`;

/** The action codecs H0 for SWE-Gym comes with. */
export type SweCodec = 'tool-calls' | 'swe-text';

/**
 * H0 for SWE-Gym, in mini-swe-agent's shape: one `bash` tool and a `submit` action; every command
 * runs in a fresh shell at the repository root with a time limit that kills its whole process
 * group. Long output is cut by the environment (head and tail of 10,000 characters, with the count
 * of what was cut), so this harness adds no context cut of its own. `tool-calls` offers the tools
 * natively; `swe-text` is mini-swe-agent's text protocol (one ```bash block a reply, `echo
 * COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` submits).
 */
export function swegymH0(codec: SweCodec = 'tool-calls'): HarnessSpec {
  return {
    schemaVersion: 1,
    id: codec === 'tool-calls' ? 'h0' : 'h0-text',
    family: 'dsh',
    env: 'swegym',
    parent: null,
    direction: null,
    description:
      codec === 'tool-calls'
        ? 'Base harness for SWE-Gym: mini-swe-agent shape (bash and submit) with native tool calls.'
        : "Base harness for SWE-Gym: mini-swe-agent's text protocol (one bash block a reply).",
    prompt: {
      system: codec === 'tool-calls' ? toolCallsSystem : textSystem,
      task: taskTemplate,
      directives: [],
    },
    codec: { kind: codec },
    tools: [],
    context: { maxObservationChars: null, truncationMarker: '', keepLastObservations: null },
    execution: { maxSteps: 100, maxFormatErrors: 3 },
  };
}
