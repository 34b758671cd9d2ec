import type { Action, OraclePlan, PlanNode } from '@harness-s/core';

/** The next action of a plan, with the decisions taken to reach it. */
export interface PlannedAction {
  action: Action;
  thought?: string;
  decisions: Array<{ skill: string; right: boolean }>;
}

/**
 * Walks an oracle plan one action at a time. At each decision point `choose(skill)` says whether
 * the right branch is taken; the chosen branch's nodes are then walked before the rest.
 */
export class PlanWalker {
  private readonly pending: PlanNode[];

  constructor(plan: OraclePlan) {
    this.pending = [...plan.nodes];
  }

  get finished(): boolean {
    return this.pending.length === 0;
  }

  next(choose: (skill: string) => boolean): PlannedAction | null {
    const decisions: PlannedAction['decisions'] = [];
    for (let node = this.pending.shift(); node; node = this.pending.shift()) {
      if (node.kind === 'act') {
        return { action: node.action, ...(node.thought ? { thought: node.thought } : {}), decisions };
      }
      const right = choose(node.skill);
      decisions.push({ skill: node.skill, right });
      this.pending.unshift(...(right ? node.right : node.wrong));
    }
    return null;
  }
}

/** A rough token count for simulated usage (about four characters a token). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
