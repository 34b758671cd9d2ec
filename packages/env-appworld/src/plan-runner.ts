import type { Action, Environment, Evaluation, PlanNode, StepResult, Task } from '@harness-s/core';

/** The actions of a plan when `choose(skill)` says which branch each decision takes. */
export function walkPlan(nodes: readonly PlanNode[], choose: (skill: string) => boolean): Action[] {
  const actions: Action[] = [];
  for (const node of nodes) {
    if (node.kind === 'act') actions.push(node.action);
    else actions.push(...walkPlan(choose(node.skill) ? node.right : node.wrong, choose));
  }
  return actions;
}

/** Runs actions on a fresh episode until one ends it; returns the observations and the evaluation. */
export async function runActions<T extends Task>(
  environment: Environment<T>,
  task: T,
  actions: readonly Action[],
): Promise<{ results: StepResult[]; evaluation: Evaluation }> {
  const episode = await environment.open(task);
  try {
    const results: StepResult[] = [];
    for (const action of actions) {
      const result = await episode.step(action);
      results.push(result);
      if (result.done) break;
    }
    return { results, evaluation: await episode.evaluate() };
  } finally {
    await episode.close();
  }
}
