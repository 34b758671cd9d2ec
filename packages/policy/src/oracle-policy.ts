import { ConfigError, type EpisodeContext, type Policy, type PolicySession } from '@harness-s/core';
import { estimateTokens, PlanWalker } from './plan-walker.js';

/** A policy that walks a privileged plan taking every right branch: the oracle or the empty policy. */
function createPlanFollower(kind: 'oracle' | 'empty'): Policy {
  return {
    id: kind,
    version: kind,
    needsPlan: kind,
    describe: () => ({ kind }),
    startEpisode(context: EpisodeContext): PolicySession {
      if (!context.plan)
        throw new ConfigError(`the ${kind} policy needs the environment's ${kind} plan`, { code: 'missing-plan' });
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

/**
 * The oracle: follows the environment's reference plan, taking every right branch. It validates
 * environments (it must solve every task) and is the ceiling of the simulated policy.
 */
export const createOraclePolicy = (): Policy => createPlanFollower('oracle');

/**
 * The empty policy: ends every episode at once having changed nothing (commits no answer, submits
 * no patch). Like SWE-bench's empty patch, it must solve no task.
 */
export const createEmptyPolicy = (): Policy => createPlanFollower('empty');
