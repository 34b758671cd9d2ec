import {
  type Action,
  ConfigError,
  type Decision,
  deriveSeed,
  type EpisodeContext,
  formatZodError,
  type Message,
  type OraclePlan,
  type PlanNode,
  type Policy,
  type PolicySession,
} from '@harness-s/core';
import { estimateTokens } from './plan-walker.js';
import {
  actionFormatSkill,
  defaultSimulatedPolicyConfig,
  fixReaches,
  hardnessClass,
  localityShift,
  SimulatedPolicyConfig,
  sigmoid,
} from './sim-config.js';

export * from './sim-config.js';

/** JSON with sorted keys, so equal actions compare equal whatever their key order. */
function actionKey(action: Action): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([key, item]) => [key, sort(item)]),
          )
        : value;
  return JSON.stringify(sort(action));
}

/** What the policy reads from one turn's rendered context. */
interface ContextReading {
  /** The cue bias of a skill at a decision point of this hardness: directive cues minus crowding. */
  cue(skill: string, hardness: number): number;
  /** The latest observation carries the harness's retry message: failed decisions are drawn again. */
  secondChance: boolean;
  /** How often each action (by key) was executed so far: the policy's and the harness's. */
  executed: Map<string, number>;
}

/**
 * Reads the cues of a turn: directives whose text is in the rendered system or user messages, the
 * harness's verification reminder when it is in view, crowding by directives in the system
 * prompt, the retry message after the last turn, and the actions the transcript shows.
 */
function readContext(
  context: EpisodeContext,
  messages: readonly Message[],
  config: SimulatedPolicyConfig,
  reaches: (skill: string, hardness: number) => boolean,
): ContextReading {
  const spec = context.harness.spec;
  const systemTexts = messages.filter((message) => message.role === 'system').map((message) => message.content);
  const userTexts = messages.filter((message) => message.role === 'user').map((message) => message.content);
  const inSystem = (text: string) => systemTexts.some((content) => content.includes(text));
  const inView = (text: string) => inSystem(text) || userTexts.some((content) => content.includes(text));

  const cues = new Map<string, number>();
  const addCue = (skill: string) => cues.set(skill, (cues.get(skill) ?? 0) + config.directiveCue);
  const systemRules: Array<string | undefined> = [];
  for (const directive of spec.prompt.directives) {
    if (inSystem(directive.text)) systemRules.push(directive.skill);
    if (directive.skill && inView(directive.text)) addCue(directive.skill);
  }
  const reminder = spec.execution.verifyAfterChange;
  if (reminder?.skill && userTexts.some((content) => content.includes(reminder.message))) addCue(reminder.skill);

  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  const retry = spec.execution.retryOnError?.message;
  const secondChance =
    retry !== undefined &&
    lastAssistant >= 0 &&
    messages.slice(lastAssistant + 1).some((message) => message.role === 'user' && message.content.includes(retry));

  const executed = new Map<string, number>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const decoded = context.harness.codec.decode(message, context.envTools);
    if (!decoded.ok) continue;
    for (const item of decoded.actions) {
      if (item.harnessResult) continue;
      const key = actionKey(item.action);
      executed.set(key, (executed.get(key) ?? 0) + 1);
    }
  }

  return {
    cue(skill, hardness) {
      const own = reaches(skill, hardness) ? (cues.get(skill) ?? 0) : 0;
      if (own > 0) return own;
      const crowding = systemRules.filter((ruleSkill) => ruleSkill !== skill).length;
      return crowding === 0 ? 0 : -config.directiveCrowding * crowding;
    },
    secondChance,
    executed,
  };
}

/** A plan node still to walk; `mechanised` when a tool transform took the decision that led to it. */
interface PendingNode {
  node: PlanNode;
  mechanised: boolean;
}

/**
 * Walks the oracle plan like `PlanWalker`, with two harness mechanics: a decision whose skill a
 * tool transform performs is not the policy's to make (its right branch is taken, no decision is
 * recorded), and in such a branch an action the harness already executed is not repeated.
 */
class SimulatedPlanWalker {
  private readonly pending: PendingNode[];
  private readonly consumed = new Map<string, number>();

  constructor(plan: OraclePlan) {
    this.pending = plan.nodes.map((node) => ({ node, mechanised: false }));
  }

  next(
    choose: (skill: string, hardness: number) => boolean,
    mechanise: (skill: string, hardness: number) => void,
    performedByHarness: (skill: string, hardness: number) => boolean,
    executed: ReadonlyMap<string, number>,
  ): { action: Action; thought?: string } | null {
    for (let item = this.pending.shift(); item; item = this.pending.shift()) {
      const { node, mechanised } = item;
      if (node.kind === 'act') {
        if (mechanised) {
          const key = actionKey(node.action);
          const consumed = this.consumed.get(key) ?? 0;
          if ((executed.get(key) ?? 0) > consumed) {
            this.consumed.set(key, consumed + 1);
            continue;
          }
        }
        return { action: node.action, ...(node.thought ? { thought: node.thought } : {}) };
      }
      if (performedByHarness(node.skill, node.hardness ?? 0)) {
        mechanise(node.skill, node.hardness ?? 0);
        this.pending.unshift(...node.right.map((child) => ({ node: child, mechanised: true })));
        continue;
      }
      const branch = choose(node.skill, node.hardness ?? 0) ? node.right : node.wrong;
      this.pending.unshift(...branch.map((child) => ({ node: child, mechanised })));
    }
    return null;
  }
}

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

  startEpisode(context: EpisodeContext): PolicySession {
    if (!context.plan) throw new ConfigError('the simulated policy needs the oracle plan', { code: 'missing-plan' });
    const walker = new SimulatedPlanWalker(context.plan);
    const { spec } = context.harness;
    const reaches = (skill: string, hardness: number) =>
      hardness <= 0 || fixReaches(context.task.id, spec.id, skill, this.config.hardFixReach);
    const toolSkills = new Set(spec.tools.flatMap((tool) => (tool.skill ? [tool.skill] : [])));
    const performedByHarness = (skill: string, hardness: number) => toolSkills.has(skill) && reaches(skill, hardness);
    const occurrences = new Map<string, number>();
    const uniform = (skill: string, occurrence: number, draw: number) =>
      deriveSeed(context.seed, skill, occurrence, draw) / 4294967296;
    const shifts = new Map<string, number>();
    const locality = (skill: string): number => {
      if (spec.parent === null || skill === actionFormatSkill) return 0;
      let shift = shifts.get(skill);
      if (shift === undefined) {
        shift = localityShift(context.task.id, spec.id, skill, this.config.localitySpread);
        shifts.set(skill, shift);
      }
      return shift;
    };
    return {
      respond: async (request) => {
        const reading = readContext(context, request.messages, this.config, reaches);
        const decisions: Decision[] = [];
        const choose = (skill: string, hardness = 0): boolean => {
          const cue = reading.cue(skill, hardness) + locality(skill);
          const probability = sigmoid(this.logit(skill, hardness) + cue);
          const occurrence = occurrences.get(skill) ?? 0;
          occurrences.set(skill, occurrence + 1);
          const draws = reading.secondChance && skill !== actionFormatSkill ? 2 : 1;
          for (let draw = 0; draw < draws; draw += 1) {
            const right = uniform(skill, occurrence, draw) < probability;
            decisions.push({ skill, right, probability, cue, ...(hardness > 0 ? { hardness } : {}) });
            if (right) return true;
          }
          return false;
        };
        const promptTokens = request.messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);

        let message: Message & { role: 'assistant' };
        if (!choose(actionFormatSkill)) {
          // A turn of thinking aloud with no action in it: the codec reports a format error.
          message = { role: 'assistant', content: 'Let me think about how to approach this before acting.' };
        } else {
          const mechanise = (skill: string, hardness: number) => {
            decisions.push({
              skill,
              right: true,
              probability: 1,
              cue: 0,
              byHarness: true,
              ...(hardness > 0 ? { hardness } : {}),
            });
          };
          const next = walker.next(choose, mechanise, performedByHarness, reading.executed);
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
