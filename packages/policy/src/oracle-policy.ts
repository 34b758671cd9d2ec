import { ConfigError, type EpisodeContext, type Policy, type PolicySession } from '@harness-s/core';
import { estimateTokens, PlanWalker } from './plan-walker.js';

/**
 * The oracle: follows the environment's reference plan, taking every right branch. It validates
 * environments (it must solve every task) and is the ceiling of the simulated policy.
 */
export function createOraclePolicy(): Policy {
  return {
    id: 'oracle',
    version: 'oracle',
    needsPlan: true,
    describe: () => ({ kind: 'oracle' }),
    startEpisode(context: EpisodeContext): PolicySession {
      if (!context.plan) throw new ConfigError('the oracle policy needs the oracle plan', { code: 'missing-plan' });
      const walker = new PlanWalker(context.plan);
      return {
        async respond(request) {
          const next = walker.next(() => true);
          const message = next
            ? context.harness.codec.encode([next.action], next.thought)
            : { role: 'assistant' as const, content: 'The plan is complete.' };
          const prompt = request.messages.reduce((sum, item) => sum + estimateTokens(item.content), 0);
          return {
            message,
            usage: { promptTokens: prompt, completionTokens: estimateTokens(JSON.stringify(message)) },
          };
        },
      };
    },
  };
}
