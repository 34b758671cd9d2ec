import type { HarnessSpec } from '@harness-s/core';

/**
 * A harness family for SWE-Gym that does not descend from H0, for cross-harness evaluation:
 * code-act style tool calls (`think`, `bash`, `finish` for submit) with a short prompt and the
 * last ten observations kept whole.
 */
const codeActSystem = `You are a software engineer fixing an issue in the repository in your working directory.
Use think to plan, bash to run one shell command at a time (read code, reproduce the bug, edit files, run the tests), and finish when your change is complete: the diff of the working tree is your fix.`;

/** `codeact`: think, bash and finish tools; older observations elided to a summary. */
export function swegymCodeAct(): HarnessSpec {
  return {
    schemaVersion: 1,
    id: 'codeact',
    family: 'codeact',
    env: 'swegym',
    parent: null,
    direction: null,
    description: 'Code-act style: think, bash and finish tools; observations beyond the last ten elided.',
    prompt: { system: codeActSystem, task: 'Issue:\n{{instruction}}', directives: [] },
    codec: { kind: 'codeact', options: { finishTool: 'submit' } },
    tools: [],
    context: {
      maxObservationChars: 6000,
      truncationMarker: '\n[output cut]\n',
      keepLastObservations: 10,
      elidedSummaryChars: 100,
    },
    execution: { maxSteps: 80, maxFormatErrors: 3 },
  };
}
