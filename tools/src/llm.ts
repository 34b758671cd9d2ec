import { ConfigError, type Harness } from '@harness-s/core';
import { createOpenAIPolicy } from '@harness-s/policy';
import {
  type ChatFunction,
  LlmRanker,
  type ProfileSet,
  ProfileStatsRanker,
  type Ranker,
  SimilarTaskRanker,
  summarizeProfiles,
} from '@harness-s/router';

/** A model behind an OpenAI-compatible endpoint, as flags name it: `MODEL@BASE_URL`. */
export interface ModelEndpoint {
  model: string;
  baseUrl: string;
}

/** Parses `MODEL@BASE_URL` (the model name may itself hold `@`: the last one separates). */
export function parseModelEndpoint(flag: string, value: string): ModelEndpoint {
  const at = value.lastIndexOf('@');
  const model = value.slice(0, at);
  const baseUrl = value.slice(at + 1);
  if (at <= 0 || !/^https?:\/\/\S+$/.test(baseUrl)) {
    throw new ConfigError(`${flag} must look like MODEL@http://host:port/v1, got '${value}'`, { code: 'bad-flag' });
  }
  return { model, baseUrl };
}

/** A chat function over an OpenAI-compatible endpoint, at temperature 0. */
export function endpointChat(endpoint: ModelEndpoint, harness: Harness): ChatFunction {
  const policy = createOpenAIPolicy({ baseUrl: endpoint.baseUrl, model: endpoint.model, temperature: 0 });
  return async (messages) => {
    const session = policy.startEpisode({
      task: { id: 'router', env: harness.spec.env, split: 'router', instruction: '', tags: [] },
      harness,
      envTools: [],
      seed: 0,
    });
    return (await session.respond({ messages, tools: [] })).message.content;
  };
}

/**
 * The router's rankers: the profile-statistics and similar-task rankers, plus one LLM ranker per
 * `--llm-ranker MODEL@URL`, each weight 1; an LLM answer that cannot be used falls back to the
 * profile statistics and is logged.
 */
export function routerRankers(
  specs: readonly string[] | undefined,
  h0: Harness,
  log: (line: string) => void,
): Ranker[] {
  const llm = (specs ?? []).map((spec) => {
    const endpoint = parseModelEndpoint('--llm-ranker', spec);
    return new LlmRanker({
      id: `llm:${endpoint.model}`,
      chat: endpointChat(endpoint, h0),
      onInvalid: (reason) => log(`ranker llm:${endpoint.model}: unusable answer (${reason}); profile statistics used`),
    });
  });
  return [new ProfileStatsRanker(), new SimilarTaskRanker(), ...llm];
}

/**
 * Profile summaries by the `--summarizer MODEL@URL` model, or the profiles unchanged without one.
 * An unusable answer keeps the template summary and is logged.
 */
export function profileSummarizer(
  spec: string | undefined,
  h0: Harness,
  log: (line: string) => void,
): ((profiles: ProfileSet) => Promise<ProfileSet>) | undefined {
  if (!spec) return undefined;
  const endpoint = parseModelEndpoint('--summarizer', spec);
  const chat = endpointChat(endpoint, h0);
  return (profiles) =>
    summarizeProfiles(profiles, {
      chat,
      writer: `llm:${endpoint.model}`,
      onInvalid: (harnessId, reason) =>
        log(`summarizer llm:${endpoint.model}: ${harnessId}: unusable answer (${reason}); template summary kept`),
    });
}
