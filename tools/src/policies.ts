import { ConfigError, type Policy } from '@harness-s/core';
import {
  createEmptyPolicy,
  createOpenAIPolicy,
  createOraclePolicy,
  type OpenAIPolicyOptions,
  SimulatedPolicy,
  type SimulatedPolicyConfig,
} from '@harness-s/policy';

export interface PolicyFlags {
  policy: string;
  model?: string;
  baseUrl?: string;
  temperature?: number;
  maxTokens?: number;
}

export const policyNames = ['sim', 'oracle', 'empty', 'openai'] as const;

/** Creates the policy named by `--policy`. */
export function createPolicy(flags: PolicyFlags): Policy {
  switch (flags.policy) {
    case 'sim':
      return new SimulatedPolicy();
    case 'oracle':
      return createOraclePolicy();
    case 'empty':
      return createEmptyPolicy();
    case 'openai': {
      const baseUrl = flags.baseUrl ?? process.env['OPENAI_BASE_URL'];
      if (!baseUrl) {
        throw new ConfigError(
          '--policy openai needs --base-url URL (or OPENAI_BASE_URL), e.g. http://127.0.0.1:8000/v1',
          {
            code: 'bad-flag',
          },
        );
      }
      if (!flags.model) throw new ConfigError('--policy openai needs --model NAME', { code: 'bad-flag' });
      return createOpenAIPolicy({
        baseUrl,
        model: flags.model,
        ...(flags.temperature === undefined ? {} : { temperature: flags.temperature }),
        ...(flags.maxTokens === undefined ? {} : { maxTokens: flags.maxTokens }),
      });
    }
    default:
      throw new ConfigError(`unknown --policy '${flags.policy}'; available: ${policyNames.join(', ')}`, {
        code: 'unknown-policy',
      });
  }
}

/**
 * Rebuilds a policy from what its `describe()` returned, so a rollout worker acts with the same
 * parameters as the training loop that enqueued the attempt: the simulated policy from
 * `{ kind: 'simulated', step, ...config }`, the oracle and the empty policy from their kind, an
 * OpenAI-compatible policy from its settings (which never hold the API key: the worker's own
 * OPENAI_API_KEY is used).
 */
export function policyFromDescription(description: Record<string, unknown>): Policy {
  const { kind, ...rest } = description;
  if (kind === 'simulated') {
    const { step, ...config } = rest;
    if (typeof step !== 'number' || !Number.isInteger(step) || step < 0) {
      throw new ConfigError(`simulated policy description: step must be a non-negative integer, got ${String(step)}`, {
        code: 'bad-policy-description',
      });
    }
    // The constructor validates the configuration strictly, so a field it does not know is refused.
    return new SimulatedPolicy(config as Partial<SimulatedPolicyConfig>, step);
  }
  if (kind === 'oracle') return createOraclePolicy();
  if (kind === 'empty') return createEmptyPolicy();
  if (kind === undefined && typeof rest['baseUrl'] === 'string' && typeof rest['model'] === 'string') {
    return createOpenAIPolicy(rest as OpenAIPolicyOptions);
  }
  throw new ConfigError(`cannot rebuild a policy from ${JSON.stringify(description).slice(0, 200)}`, {
    code: 'bad-policy-description',
  });
}
