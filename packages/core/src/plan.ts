import { z } from 'zod';
import { Action } from './action.js';

/**
 * An oracle plan: an environment's reference solution of a task, written as a tree.
 *
 * - `act` nodes are environment actions (the same actions a policy would emit).
 * - `decide` nodes are *decision points*: places where an agent can take the right branch or make
 *   a realistic mistake, named by the *skill* that separates them (`inspect-table`,
 *   `quote-identifiers`...). Both branches are real actions that the real environment executes
 *   and the real evaluator scores.
 *
 * Following every `right` branch must solve the task (the oracle policy does exactly that, which
 * validates the environment); the simulated policy walks the same tree and chooses branches with
 * its own probabilities.
 */
export type PlanNode =
  | { kind: 'act'; action: Action /** What an agent would say before acting. */; thought?: string }
  | {
      kind: 'decide';
      skill: string;
      right: PlanNode[];
      wrong: PlanNode[];
      /**
       * How much harder this instance of the skill is than usual (0 by default): a policy's logit
       * for the right branch is lowered by it. It is a property of the task (a name that needs
       * unusual quoting, an answer with many values), the same for every harness and method.
       */
      hardness?: number;
    };

export const PlanNode: z.ZodType<PlanNode> = z.lazy(() =>
  // Told apart by `kind`, so an error names the field of the node that is wrong.
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('act'), action: Action, thought: z.string().optional() }),
    z.object({
      kind: z.literal('decide'),
      skill: z.string().min(1),
      right: z.array(PlanNode),
      wrong: z.array(PlanNode),
      hardness: z.number().nonnegative().optional(),
    }),
  ]),
);

/** A task's oracle plan. */
export interface OraclePlan {
  taskId: string;
  nodes: PlanNode[];
}

/** A skill that decision points name, with what taking its right branch means. */
export interface SkillDescription {
  name: string;
  description: string;
}

/** The actions of a plan when every decision takes its right branch. */
export function rightPath(nodes: readonly PlanNode[]): Action[] {
  const actions: Action[] = [];
  for (const node of nodes) {
    if (node.kind === 'act') actions.push(node.action);
    else actions.push(...rightPath(node.right));
  }
  return actions;
}

/** Every skill named by a decision point in the plan, each once. */
export function planSkills(nodes: readonly PlanNode[]): string[] {
  const skills = new Set<string>();
  const visit = (list: readonly PlanNode[]): void => {
    for (const node of list) {
      if (node.kind === 'decide') {
        skills.add(node.skill);
        visit(node.right);
        visit(node.wrong);
      }
    }
  };
  visit(nodes);
  return [...skills];
}

/**
 * The plan with `hardness[skill]` set on every decision point of that skill (skills not listed
 * keep their own). Environments derive the map from a task's features, so the same task is
 * equally hard under every harness and for every method.
 */
export function withHardness(plan: OraclePlan, hardness: Readonly<Record<string, number>>): OraclePlan {
  const visit = (nodes: readonly PlanNode[]): PlanNode[] =>
    nodes.map((node) => {
      if (node.kind === 'act') return node;
      const extra = hardness[node.skill];
      return {
        ...node,
        right: visit(node.right),
        wrong: visit(node.wrong),
        ...(extra !== undefined && extra > 0 ? { hardness: extra } : {}),
      };
    });
  return { ...plan, nodes: visit(plan.nodes) };
}
