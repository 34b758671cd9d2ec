import { deriveSeed } from '@harness-s/core';
import { z } from 'zod';

/** The interference of each other rule in the system prompt with a skill that has none (see `SimulatedPolicy`). */
export const defaultDirectiveCrowding = 0.3;

/**
 * Settings of the simulated policy. One documented configuration serves every method, harness
 * and environment; nothing in it knows which training method or which variant runs.
 */
export const SimulatedPolicyConfig = z.strictObject({
  /** Logit of taking the right branch, per skill. */
  theta: z.record(z.string(), z.number()),
  /** Logit for skills not listed in `theta`. */
  defaultTheta: z.number(),
  /** Added to a skill's logit when a directive for it is present in the rendered context. */
  directiveCue: z.number(),
  /**
   * Subtracted from the logit of a skill without a directive of its own, once for every directive
   * in the system prompt (for another skill or none): rules compete for attention, so stacking
   * fixes into one harness interferes. Checkpoints written before it existed read the default.
   */
  directiveCrowding: z.number().default(defaultDirectiveCrowding),
  /** Logit of writing a well-formed action on a turn (the `action-format` skill). */
  actionFormatTheta: z.number(),
  /**
   * What the policy has learned about hard instances, per hardness class `skill@hardness` (see
   * `hardnessClass`): it offsets the hardness of that class's decision points, never beyond it.
   * Only decisions of the class teach it, so a policy that never succeeds on such instances never
   * learns it: easy instances of the same skill do not. Checkpoints written before it existed
   * read {}.
   */
  hardTheta: z.record(z.string(), z.number().nonnegative()).default({}),
  /**
   * Locality of a derived harness (one with a parent): besides its cues, everything it changes in
   * the context moves the policy a little on each task, for better or worse, in a way particular
   * to the task. Each (task, harness, skill) gets a persistent logit shift drawn from a normal
   * distribution with this standard deviation (see `localityShift`); a base harness gets none, as
   * the tasks' hardness is measured against it. 0, the default, turns it off (see
   * docs/simulated-policy.md for what 1 does); checkpoints written before it existed read 0.
   */
  localitySpread: z.number().nonnegative().default(0),
  /**
   * Reach of a harness's fixes on hard instances: the chance that what a harness does for a skill
   * (a directive or reminder for it, a tool transform that performs it) also copes with a task's
   * hard feature, at a decision point with hardness. Whether it does is persistent per (task,
   * harness, skill) (see `fixReaches`): where it does not, the directive gives no cue there and the
   * tool leaves the decision to the policy, on every attempt and policy version. Easy decision
   * points are always reached. 1 reaches everything; checkpoints written before it existed read 1.
   */
  hardFixReach: z.number().gt(0).lte(1).default(1),
});
export type SimulatedPolicyConfig = z.infer<typeof SimulatedPolicyConfig>;

/**
 * The default tendencies: a competent but error-prone agent. On DBBench it sometimes skips looking
 * at the table or forgets to quote a name, often does not check a write, and usually answers
 * cleanly; a directive for a skill in view is a strong cue (see docs/simulated-policy.md).
 */
export const defaultSimulatedPolicyConfig: SimulatedPolicyConfig = {
  theta: {
    'inspect-table': 1.0,
    'quote-identifiers': 1.5,
    'recover-from-error': 0.5,
    'answer-format': 1.5,
    'exact-values': 1.5,
    'verify-after-write': -0.5,
    // SWE-Gym: usually reproduces and fixes every call site, often submits without running the tests.
    'reproduce-first': 1.5,
    'fix-all-call-sites': 1.5,
    'run-tests-before-submit': 0.0,
    'check-diff-before-submit': 0.5,
    // AppWorld: usually asks the supervisor app for passwords; often calls an API without its doc,
    // reads only the first page, takes a union, skips checking a write or stops an account
    // recovery once the code is in hand.
    'lookup-api-doc': 0.5,
    'ask-supervisor': 1.0,
    'fetch-all-pages': 0.7,
    'intersect-not-union': 0.3,
    'check-after-write': 0.0,
    'finish-account-flow': 0.5,
  },
  defaultTheta: 0.5,
  directiveCue: 4,
  directiveCrowding: defaultDirectiveCrowding,
  actionFormatTheta: 3.0,
  hardTheta: {},
  localitySpread: 0,
  hardFixReach: 1,
};

export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * The hardness class of a decision point: its skill and hardness level, e.g. `exact-values@6`.
 * Instances of one class are alike for the policy (an environment gives one level to one kind of
 * feature), so what it learns on one carries over to the others, and to no other class.
 */
export const hardnessClass = (skill: string, hardness: number): string => `${skill}@${hardness}`;

/**
 * The logit shift a derived harness gives a skill on a task (see `localitySpread`): a standard
 * normal draw keyed by (task, harness, skill), times the spread. The same on every attempt and
 * every policy version, so a harness that misleads the policy on a task keeps doing so.
 */
export function localityShift(taskId: string, harnessId: string, skill: string, spread: number): number {
  if (spread === 0) return 0;
  const u1 = (deriveSeed('locality', taskId, harnessId, skill, 0) + 0.5) / 4294967296;
  const u2 = deriveSeed('locality', taskId, harnessId, skill, 1) / 4294967296;
  return spread * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * Whether a harness's fix for a skill copes with a task's hard feature (see `hardFixReach`): a
 * uniform draw keyed by (task, harness, skill) below the reach, the same on every attempt and
 * every policy version.
 */
export function fixReaches(taskId: string, harnessId: string, skill: string, reach: number): boolean {
  return reach >= 1 || deriveSeed('reach', taskId, harnessId, skill) / 4294967296 < reach;
}

/** The skill name of the per-turn format decision. */
export const actionFormatSkill = 'action-format';
