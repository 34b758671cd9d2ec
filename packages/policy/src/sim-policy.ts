import {
  ConfigError,
  type Decision,
  type EpisodeContext,
  formatZodError,
  type Message,
  type Policy,
  type PolicySession,
  Random,
} from '@harness-s/core';
import { z } from 'zod';
import { estimateTokens, PlanWalker } from './plan-walker.js';

/**
 * Settings of the simulated policy. One documented configuration serves every method and
 * environment; nothing in it knows which training method runs.
 */
export const SimulatedPolicyConfig = z.strictObject({
  /** Logit of taking the right branch, per skill. */
  theta: z.record(z.string(), z.number()),
  /** Logit for skills not listed in `theta`. */
  defaultTheta: z.number(),
  /** Added to a skill's logit when a directive for it is present in the rendered context. */
  directiveCue: z.number(),
  /** Logit of writing a well-formed action on a turn (the `action-format` skill). */
  actionFormatTheta: z.number(),
});
export type SimulatedPolicyConfig = z.infer<typeof SimulatedPolicyConfig>;

/**
 * The default tendencies: a competent but error-prone agent. On DBBench it often skips looking at
 * the table, sometimes forgets to quote names or to check a write, and usually answers cleanly.
 */
export const defaultSimulatedPolicyConfig: SimulatedPolicyConfig = {
  theta: {
    'inspect-table': 0.4,
    'quote-identifiers': 1.0,
    'recover-from-error': 0.0,
    'answer-format': 1.2,
    'exact-values': 1.5,
    'verify-after-write': -0.5,
  },
  defaultTheta: 0.5,
  directiveCue: 1.5,
  actionFormatTheta: 3.0,
};

export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** The skill name of the per-turn format decision. */
export const actionFormatSkill = 'action-format';

/** Directive cues per skill from what the harness rendered into the messages the policy sees. */
function cuesFromContext(context: EpisodeContext, messages: readonly Message[], strength: number): Map<string, number> {
  const cues = new Map<string, number>();
  const visible = messages
    .filter((message) => message.role === 'system' || message.role === 'user')
    .map((message) => message.content);
  for (const directive of context.harness.spec.prompt.directives) {
    if (!directive.skill) continue;
    if (visible.some((content) => content.includes(directive.text))) {
      cues.set(directive.skill, (cues.get(directive.skill) ?? 0) + strength);
    }
  }
  return cues;
}

/**
 * The simulated policy: a small parametric model of an agent's tendencies, so the whole method
 * runs on a CPU in seconds. It is a simulation, not a language model.
 *
 * It follows the environment's oracle plan; at each decision point it takes the right branch with
 * probability sigmoid(theta[skill] + cue), where the cue comes from directives present in its
 * rendered context. Wrong branches are real actions the real environment executes and scores.
 * It speaks through the harness's action codec, like a model would, and now and then writes a
 * turn with no valid action. Its GRPO trainer updates theta from the recorded decisions.
 */
export class SimulatedPolicy implements Policy {
  readonly id = 'sim';
  readonly needsPlan = 'oracle' as const;
  readonly config: SimulatedPolicyConfig;

  constructor(
    config: Partial<SimulatedPolicyConfig> = {},
    /** Training step the parameters come from; part of the version. */
    readonly step = 0,
  ) {
    const merged = {
      ...defaultSimulatedPolicyConfig,
      ...config,
      theta: { ...defaultSimulatedPolicyConfig.theta, ...config.theta },
    };
    const parsed = SimulatedPolicyConfig.safeParse(merged);
    if (!parsed.success)
      throw new ConfigError(`simulated policy config: ${formatZodError(parsed.error)}`, { code: 'bad-policy-config' });
    this.config = parsed.data;
  }

  get version(): string {
    return `sim@${this.step}`;
  }

  /** Logit of the right branch of a skill, before cues. */
  logit(skill: string): number {
    if (skill === actionFormatSkill) return this.config.actionFormatTheta;
    return this.config.theta[skill] ?? this.config.defaultTheta;
  }

  describe(): Record<string, unknown> {
    return { kind: 'simulated', step: this.step, ...this.config };
  }

  startEpisode(context: EpisodeContext): PolicySession {
    if (!context.plan) throw new ConfigError('the simulated policy needs the oracle plan', { code: 'missing-plan' });
    const walker = new PlanWalker(context.plan);
    const random = new Random(context.seed);
    return {
      respond: async (request) => {
        const cues = cuesFromContext(context, request.messages, this.config.directiveCue);
        const decisions: Decision[] = [];
        const choose = (skill: string): boolean => {
          const cue = cues.get(skill) ?? 0;
          const probability = sigmoid(this.logit(skill) + cue);
          const right = random.next() < probability;
          decisions.push({ skill, right, probability, cue });
          return right;
        };
        const promptTokens = request.messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);

        let message: Message & { role: 'assistant' };
        if (!choose(actionFormatSkill)) {
          // A turn of thinking aloud with no action in it: the codec reports a format error.
          message = { role: 'assistant', content: 'Let me think about how to approach this before acting.' };
        } else {
          const next = walker.next(choose);
          message = next
            ? context.harness.codec.encode([next.action], next.thought)
            : { role: 'assistant', content: 'I have nothing more to do.' };
        }
        return {
          message,
          usage: {
            promptTokens,
            completionTokens: estimateTokens(message.content + JSON.stringify(message.toolCalls ?? '')),
          },
          decisions,
        };
      },
    };
  }
}
