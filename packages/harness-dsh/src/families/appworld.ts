import type { HarnessSpec } from '@harness-s/core';
import type { AppWorldLanguage } from '../appworld.js';

/**
 * A harness family for AppWorld that does not descend from H0, for cross-harness evaluation: a
 * plain ReAct loop over the same `execute` tool, without the AppWorld authors' worked example and
 * key rules, keeping the last eight observations.
 */
const minimalSystem = `You act for the user in their apps (music, wallet, mail, notes, shop, phone, files, supervisor) by writing JavaScript that calls their APIs, e.g. apis.music.login({ username, password }).
apis.api_docs.show_api_descriptions({ app_name }) lists an app's APIs; apis.api_docs.show_api_doc({ app_name, api_name }) describes one. Use print(...) to see a value.
Reply with one \`\`\`js block per turn. When you are done, call apis.supervisor.complete_task({}) (with { answer: ... } when the task asks for information).`;

/** The same for Python, the real AppWorld server's language. */
const minimalPythonSystem = `You act for the user in their apps by writing Python code that calls their APIs, e.g. apis.music.login(username=..., password=...).
apis.api_docs.show_app_descriptions() lists the apps; apis.api_docs.show_api_descriptions(app_name=...) lists an app's APIs; apis.api_docs.show_api_doc(app_name=..., api_name=...) describes one. Use print(...) to see a value.
Reply with one \`\`\`python block per turn. When you are done, call apis.supervisor.complete_task() (with answer=... when the task asks for information).`;

/**
 * `minimal`: a terse ReAct prompt, JavaScript code blocks, older observations elided;
 * `minimal-python` the same in Python, for the real AppWorld server.
 */
export function appworldMinimal(language: AppWorldLanguage = 'javascript'): HarnessSpec {
  const python = language === 'python';
  return {
    schemaVersion: 1,
    id: python ? 'minimal-python' : 'minimal',
    family: 'minimal',
    env: 'appworld',
    parent: null,
    direction: null,
    description: `Minimal ReAct loop: a three-line prompt, one ${python ? 'Python' : 'JavaScript'} block a turn, the last eight observations.`,
    prompt: { system: python ? minimalPythonSystem : minimalSystem, task: 'Task: {{instruction}}', directives: [] },
    codec: python ? { kind: 'code-block', options: { language } } : { kind: 'code-block' },
    tools: [],
    context: {
      maxObservationChars: 4000,
      truncationMarker: ' [output cut]',
      keepLastObservations: 8,
      elidedSummaryChars: 120,
    },
    execution: { maxSteps: 40, maxFormatErrors: 3 },
  };
}
