import {
  ConfigError,
  type Decision,
  type EpisodeContext,
  formatZodError,
  type Message,
  type Policy,
} from '@harness-s/core';
import { actionFormatSkill, defaultSimulatedPolicyConfig, hardnessClass, SimulatedPolicyConfig } from './sim-config.js';
import { followTranscript, SimulatedSession } from './sim-session.js';
import type { FollowOptions } from './sim-transcript.js';

export * from './sim-config.js';
export { followTranscript, SimulatedSession } from './sim-session.js';
export { type FollowOptions, policyTurns } from './sim-transcript.js';

/**
 * The simulated policy: a small parametric model of an agent's tendencies, so the whole method
 * runs on a CPU in seconds. It is a simulation, not a language model.
 *
 * It follows the environment's oracle plan; at each decision point it takes the right branch with
 * probability p = sigmoid(theta[skill] + cue + shift - max(0, hardness - hardTheta[skill@hardness])), where
 * `hardness` is the decision point's own (a property of the task, 0 unless the plan says
 * otherwise) and `hardTheta` what the policy has learned about that class of hard instances. It knows only what
 * the rendered context and the harness spec's mechanics give it:
 *
 * - Cue: `directiveCue` for each directive of the skill whose text is in the rendered system or
 *   user messages, and for the verification reminder (`execution.verifyAfterChange`) when its
 *   message is in view.
 * - Crowding: a skill with no cue loses `directiveCrowding` for every directive in the system
 *   prompt (for another skill or none). A fix helps its skill and slightly hurts the others, and
 *   stacking fixes interferes: locality.
 * - Shift: a derived harness (one with a parent) moves each skill's logit on each task by a
 *   persistent amount of its own, normal with sd `localitySpread` (`localityShift`): what helps
 *   on one task may mislead on the next, and repeated attempts under that harness share it.
 * - Tool transforms that perform a skill (`tools[].skill`) remove its decision points: the right
 *   branch is taken, the decision is recorded as the harness's (`byHarness`), and actions the
 *   harness already ran are not repeated.
 * - Reach: on a hard decision point, a directive's cue and a tool transform count only where the
 *   harness's fix reaches the task (`hardFixReach`, `fixReaches`; every fix reaches by default).
 * - Retry on error (`execution.retryOnError`): when the retry message follows its last turn, a
 *   decision that came out wrong is drawn a second time (both draws are recorded).
 *
 * Draws are keyed by (seed, skill, occurrence), not taken from one stream: under paired seeds, H0
 * and a variant meet the same random numbers at the same decisions, so their difference on a
 * task is the harness's doing. Wrong branches are real actions the real environment executes and
 * scores. It speaks through the harness's action codec, and now and then writes a turn with no
 * valid action (the `action-format` skill, drawn once per turn). Its GRPO trainer updates theta
 * from the recorded decisions, whose `cue` includes crowding and the shift.
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

  /** Logit of the right branch of a skill, before cues, at a decision point of this hardness. */
  logit(skill: string, hardness = 0): number {
    if (skill === actionFormatSkill) return this.config.actionFormatTheta;
    return (this.config.theta[skill] ?? this.config.defaultTheta) - this.remainingHardness(skill, hardness);
  }

  /** A decision point's hardness less what the policy has learned about its hardness class. */
  remainingHardness(skill: string, hardness: number): number {
    if (hardness <= 0) return 0;
    return Math.max(0, hardness - (this.config.hardTheta[hardnessClass(skill, hardness)] ?? 0));
  }

  describe(): Record<string, unknown> {
    return { kind: 'simulated', step: this.step, ...this.config };
  }

  startEpisode(context: EpisodeContext): SimulatedSession {
    return new SimulatedSession(this, context);
  }

  /**
   * The decisions behind each of this policy's turns in a transcript of an episode (teacher
   * forcing): what it chose at every decision point to write them, with the probabilities it gives
   * those choices now. The transcript is the full conversation, as a trajectory's or a training
   * example's messages hold it, under `context.harness`; `rerendered` when it is an attempt under a
   * variant re-rendered under that harness (see `FollowOptions`).
   */
  follow(context: EpisodeContext, transcript: readonly Message[], options: FollowOptions = {}): Decision[][] {
    return followTranscript(this.startEpisode(context), context, transcript, options);
  }
}
