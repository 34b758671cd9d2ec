/** What the environment contract checks plans and task loading with: the walks through a plan, and their messages. */
import type { Action, Episode, PlanNode, TaskSource, UnloadableTask } from '@harness-s/core';

/** Each id that occurs more than once, once, with how many times it occurs (`dev-3 (2 times)`). */
export function repeatedIds(ids: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].filter(([, count]) => count > 1).map(([id, count]) => `${id} (${count} times)`);
}

/** Why no task loaded from a source: the source, and the records the environment could not load with their reasons. */
export function noTaskLoaded(source: TaskSource, unloadable: readonly UnloadableTask[]): string {
  const from = [
    ...(source.split !== undefined ? [`split '${source.split}'`] : []),
    ...(source.file !== undefined ? [`file ${source.file}`] : []),
  ].join(', ');
  const shown = unloadable.slice(0, 10).map((record) => `${record.id}: ${record.reason}`);
  if (unloadable.length > shown.length) shown.push(`and ${unloadable.length - shown.length} more`);
  return `no task loaded from ${from || 'the default source'}; ${
    unloadable.length === 0
      ? 'the environment reported no unloadable records either'
      : `${unloadable.length} unloadable: ${shown.join('; ')}`
  }`;
}

export const actionCount = (count: number): string => `${count} action${count === 1 ? '' : 's'}`;

export const everyDecisionRight = 'every decision right';
export const everyDecisionWrong = 'every decision wrong';

/** One way through a plan: the decisions it takes, in the order it meets them, and the actions they lead to. */
export interface PlanWalk {
  /**
   * Which decisions it takes wrong: `every decision right`, `every decision wrong`, `only decision
   * point 2 of 3 (quote-identifiers) wrong` (in the order of the plan, the nodes of a right branch
   * before those of its wrong branch).
   */
  name: string;
  decisions: Array<{ skill: string; right: boolean }>;
  actions: Action[];
}

/**
 * Walks a plan as the simulated policy does: at a decision point the chosen branch, then the rest
 * of the plan. `wrong(at)` says which decision points take their wrong branch, by position
 * (`0`, `1.right.0`, `1.wrong.2`...).
 */
function walkPlan(nodes: readonly PlanNode[], wrong: (at: string) => boolean): Omit<PlanWalk, 'name'> {
  const pending = nodes.map((node, index) => ({ node, at: `${index}` }));
  const decisions: PlanWalk['decisions'] = [];
  const actions: Action[] = [];
  for (let item = pending.shift(); item; item = pending.shift()) {
    const { node, at } = item;
    if (node.kind === 'act') {
      actions.push(node.action);
      continue;
    }
    const right = !wrong(at);
    decisions.push({ skill: node.skill, right });
    const side = right ? 'right' : 'wrong';
    pending.unshift(...node[side].map((child, index) => ({ node: child, at: `${at}.${side}.${index}` })));
  }
  return { decisions, actions };
}

/**
 * The walks through a plan the contract takes: every decision right, every decision wrong, and for
 * each decision point the walk that takes it wrong and every other right (but for the decision
 * points whose wrong branch holds it, which it cannot be reached without). Walks doing the same
 * actions as an earlier one are left out.
 */
export function planWalks(nodes: readonly PlanNode[]): PlanWalk[] {
  // Every decision point, with the positions of those whose wrong branch it lies in.
  const points: Array<{ at: string; skill: string; enclosing: string[] }> = [];
  const visit = (list: readonly PlanNode[], prefix: string, enclosing: string[]): void => {
    list.forEach((node, index) => {
      if (node.kind !== 'decide') return;
      const at = `${prefix}${index}`;
      points.push({ at, skill: node.skill, enclosing });
      visit(node.right, `${at}.right.`, enclosing);
      visit(node.wrong, `${at}.wrong.`, [...enclosing, at]);
    });
  };
  visit(nodes, '', []);
  const candidates: PlanWalk[] = [
    { name: everyDecisionRight, ...walkPlan(nodes, () => false) },
    { name: everyDecisionWrong, ...walkPlan(nodes, () => true) },
    ...points.map(({ at, skill, enclosing }, index) => ({
      name: `only decision point ${index + 1} of ${points.length} (${skill}) wrong`,
      ...walkPlan(nodes, (other) => other === at || enclosing.includes(other)),
    })),
  ];
  const seen = new Set<string>();
  return candidates.filter((walk) => {
    const key = JSON.stringify(walk.actions);
    return !seen.has(key) && !!seen.add(key);
  });
}

/** A walk's decisions as `skill right, other wrong` ('no decisions' when it takes none). */
export function describeDecisions(walk: Pick<PlanWalk, 'decisions'>): string {
  return walk.decisions.map(({ skill, right }) => `${skill} ${right ? 'right' : 'wrong'}`).join(', ') || 'no decisions';
}

/**
 * Runs a walk's actions in an episode until the environment says done. Returns what went wrong ('' when the
 * episode ended within `stepLimit`): the plan ran out first, a step threw, or the episode ended past the limit.
 */
export async function walkProblem(
  episode: Episode,
  walk: Pick<PlanWalk, 'actions'>,
  stepLimit?: { harness: string; maxSteps: number },
): Promise<string> {
  let taken = 0;
  for (const action of walk.actions) {
    taken += 1;
    let done: boolean;
    try {
      done = (await episode.step(action)).done;
    } catch (error) {
      return `action ${taken} (${action.tool}) threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (!done) continue;
    if (stepLimit && taken > stepLimit.maxSteps)
      return `the environment said done only at action ${taken}, past harness ${stepLimit.harness}'s step limit of ${stepLimit.maxSteps}`;
    return '';
  }
  const last = walk.actions.at(-1);
  return last
    ? `the plan ran out after ${actionCount(taken)} (the last ${last.tool}) and the environment never said done; a policy walking it would stop at its format-error limit`
    : 'the walk has no actions, so nothing ends the episode';
}
