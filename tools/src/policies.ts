import { ConfigError, type Policy } from '@harness-s/core';
import { createEmptyPolicy, createOpenAIPolicy, createOraclePolicy, SimulatedPolicy } from '@harness-s/policy';

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
