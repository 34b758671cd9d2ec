import type { Harness, Policy, SkillDescription } from '@harness-s/core';
import { z } from 'zod';
import { actionFormatSkillDescription, directionOfSkill, environmentExtras } from '../variants/extras.js';
import { createBuiltInAnalyser, type FailureAnalyser, FailureCause } from './causes.js';
import { askPolicy, describeTrajectory, extractJson } from './llm-chat.js';

/** The answer the model must give: at least one cause, each naming an environment skill or none. */
export function llmAnalysisSchema(skills: readonly string[]) {
  return z.strictObject({
    causes: z
      .array(
        FailureCause.extend({
          skill: z
            .string()
            .refine((skill) => skills.includes(skill), { message: `must be one of ${skills.join(', ')}` })
            .optional(),
        }),
      )
      .min(1),
  });
}

export interface LlmAnalyserOptions {
  /** The chat model, e.g. `createOpenAIPolicy({ baseUrl, model })`. */
  policy: Policy;
  /** The harness whose trajectories are analysed (the chat session is opened under it). */
  harness: Harness;
  skills: readonly SkillDescription[];
  /** Told of every answer that could not be used, before falling back. */
  log?: (line: string) => void;
}

/**
 * An analyser that asks a model for the causes of a failed trajectory. Its answer must be JSON
 * matching `llmAnalysisSchema`; any other answer (or a failed request) is logged and the built-in
 * analyser answers instead, marked `built-in (fallback)`.
 */
export function createLlmAnalyser(options: LlmAnalyserOptions): FailureAnalyser {
  const env = options.harness.spec.env;
  const fallback = createBuiltInAnalyser(env);
  const extras = environmentExtras(env);
  const skills = [...options.skills, actionFormatSkillDescription];
  const schema = llmAnalysisSchema(skills.map((skill) => skill.name));
  const directions = [...new Set(skills.map((skill) => directionOfSkill(extras, skill.name)))];
  const system = [
    'You find why an AI agent failed a task. You read its trajectory and name the causes of the failure.',
    'Answer with one JSON object and nothing else: {"causes": [{"kind": "...", "direction": "...", "skill": "...", "evidence": "..."}]}.',
    '`kind` is a short kebab-case name of what went wrong; `evidence` quotes the turn that shows it;',
    `\`skill\` (optional) is one of: ${skills.map((skill) => `${skill.name} (${skill.description})`).join('; ')}.`,
    `\`direction\` is the kind of harness fix that would help, preferably one of: ${[...directions, 'step-budget', 'context', 'verification'].join(', ')}.`,
  ].join('\n');
  return {
    id: `llm:${options.policy.id}`,
    async analyse(trajectory, harness) {
      const fallBack = async (reason: string) => {
        options.log?.(
          `analyser ${options.policy.id}: unusable answer for ${trajectory.id} (${reason}); using the built-in analyser`,
        );
        return { ...(await fallback.analyse(trajectory, harness)), analyser: 'built-in (fallback)' };
      };
      let text: string;
      try {
        text = await askPolicy(options.policy, options.harness, system, describeTrajectory(trajectory));
      } catch (error) {
        return fallBack(`request failed: ${(error as Error).message}`);
      }
      const json = extractJson(text);
      if (json instanceof Error) return fallBack(json.message);
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fallBack(`${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
      }
      return {
        trajectoryId: trajectory.id,
        taskId: trajectory.taskId,
        analyser: `llm:${options.policy.id}`,
        causes: parsed.data.causes,
      };
    },
  };
}
