import type { Action, EpisodeContext, Message, OraclePlan, PlanNode } from '@harness-s/core';
import type { SimulatedPolicyConfig } from './sim-config.js';

/** JSON with sorted keys, so equal actions compare equal whatever their key order. */
export function actionKey(action: Action): string {
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
export interface ContextReading {
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
export function readContext(
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
export interface PendingNode {
  node: PlanNode;
  mechanised: boolean;
}

/**
 * Walks the oracle plan like `PlanWalker`, with two harness mechanics: a decision whose skill a
 * tool transform performs is not the policy's to make (its right branch is taken, no decision is
 * recorded), and in such a branch an action the harness already executed is not repeated.
 */
export class SimulatedPlanWalker {
  private readonly pending: PendingNode[];
  private readonly consumed: Map<string, number>;

  constructor(plan: OraclePlan | SimulatedPlanWalker) {
    if (plan instanceof SimulatedPlanWalker) {
      this.pending = [...plan.pending];
      this.consumed = new Map(plan.consumed);
    } else {
      this.pending = plan.nodes.map((node) => ({ node, mechanised: false }));
      this.consumed = new Map();
    }
  }

  /** A walker at the same place, which walks on without moving this one. */
  clone(): SimulatedPlanWalker {
    return new SimulatedPlanWalker(this);
  }

  /** Nothing is left to walk. */
  get exhausted(): boolean {
    return this.pending.length === 0;
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
