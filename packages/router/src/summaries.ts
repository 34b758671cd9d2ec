import { describeError, formatPercent, mapConcurrent } from '@harness-s/core';
import type { ChatFunction } from './chat.js';
import type { HarnessProfile, ProfileSet } from './profiles.js';

/** The longest summary kept; a longer answer is not a summary. */
export const maxSummaryChars = 400;

export interface SummaryWriterOptions {
  chat: ChatFunction;
  /** Who wrote the summaries, recorded in each profile (`llm:<model>`). */
  writer: string;
  /** Summaries asked for at once (default 4). */
  concurrency?: number;
  /** Told about every answer that could not be used (the template summary is kept). */
  onInvalid?: (harnessId: string, reason: string, reply: string) => void;
}

const percent = (rate: number) => formatPercent(rate, 0);

/** What the model is shown of one profile: its change to H0 and its paired results by feature. */
export function summaryPrompt(profile: HarnessProfile, profiles: ProfileSet): string {
  const text = new Map(profiles.tasks.map((task) => [task.id, task.text]));
  const listed = (ids: readonly string[]) =>
    ids.length === 0
      ? 'none'
      : ids
          .slice(0, 5)
          .map((id) => `${id} ("${(text.get(id) ?? '').slice(0, 120)}")`)
          .join('; ') + (ids.length > 5 ? `; and ${ids.length - 5} more` : '');
  const features = Object.entries(profile.byFeature)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([feature, rate]) => `- ${feature}: ${percent(rate.rate)} vs H0 ${percent(rate.h0Rate)} (${rate.tasks} tasks)`,
    );
  return [
    'You describe an agent harness (the prompt, tools and rules around a language model) for a router that picks',
    'harnesses per task. Below is how it did against the base harness H0 on the same validation tasks and seeds.',
    `Harness: ${profile.harnessId}${profile.direction ? ` (repair direction: ${profile.direction})` : ''}`,
    `Its change to H0: ${profile.description}`,
    `Success rate: ${percent(profile.successRate)}, H0 ${percent(profiles.h0.successRate)}`,
    `Solves tasks H0 never solved: ${listed(profile.helps)}`,
    `Fails tasks H0 solved: ${listed(profile.hurts)}`,
    'By task feature:',
    ...(features.length ? features : ['- (no features)']),
    `Answer with one or two plain sentences, at most ${maxSummaryChars} characters, saying on which kinds of tasks`,
    'it helps and where it hurts compared with H0. No lists, no JSON, no preamble.',
  ].join('\n');
}

/** The reply as a one-paragraph summary, or the reason it is not one. */
export function parseSummary(reply: string): string | Error {
  const text = reply.replace(/\s+/g, ' ').trim();
  if (text === '') return new Error('empty answer');
  if (text.length > maxSummaryChars)
    return new Error(`answer of ${text.length} characters (at most ${maxSummaryChars})`);
  if (/^[{[`]/.test(text)) return new Error('answer is not plain text');
  return text;
}

/**
 * Profile summaries written by a chat model: each variant's paired results against H0 go to the
 * model, whose answer replaces the template summary when it is a short plain paragraph. A failed
 * request or an unusable answer keeps the template summary and is reported through `onInvalid`.
 * H0's own profile keeps its template summary (it has nothing to compare with).
 */
export async function summarizeProfiles(profiles: ProfileSet, options: SummaryWriterOptions): Promise<ProfileSet> {
  const variants = await mapConcurrent(profiles.variants, options.concurrency ?? 4, async (profile) => {
    let reply = '';
    try {
      reply = await options.chat([{ role: 'user', content: summaryPrompt(profile, profiles) }]);
    } catch (error) {
      options.onInvalid?.(profile.harnessId, `request failed: ${describeError(error)}`, reply);
      return profile;
    }
    const summary = parseSummary(reply);
    if (summary instanceof Error) {
      options.onInvalid?.(profile.harnessId, summary.message, reply);
      return profile;
    }
    return { ...profile, summary, summaryBy: options.writer };
  });
  return { ...profiles, variants };
}
