import {
  ConfigError,
  type Environment,
  formatZodError,
  type OraclePlan,
  PlanNode,
  type Task,
  type TaskSet,
  type TaskSource,
} from '@harness-s/core';

const sourceText = (source: TaskSource): string =>
  source.file !== undefined ? `file ${source.file}` : `split ${source.split ?? '(default)'}`;

/**
 * Refuses a task set that runs could not tell apart or that belongs to another environment: a task
 * id given twice (attempts, groups and reports are keyed by it) or a task whose `env` is not the
 * environment's id. Said with the ids, so a plug-in's author sees which records are wrong.
 */
export function checkTaskSet<T extends Task>(envId: string, taskSet: TaskSet<T>, source: TaskSource): TaskSet<T> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const task of taskSet.tasks) (seen.has(task.id) ? repeated : seen).add(task.id);
  const where = `environment ${envId}, ${sourceText(source)}`;
  if (repeated.size > 0)
    throw new ConfigError(
      `${where}: ${repeated.size} task id${repeated.size === 1 ? '' : 's'} given more than once (${[...repeated].slice(0, 5).join(', ')}${repeated.size > 5 ? ', ...' : ''}); every task needs an id of its own`,
      { code: 'bad-tasks' },
    );
  const foreign = taskSet.tasks.filter((task) => task.env !== envId);
  if (foreign.length > 0)
    throw new ConfigError(
      `${where}: task ${foreign[0]?.id} has env '${foreign[0]?.env}'${foreign.length > 1 ? ` (and ${foreign.length - 1} more)` : ''}; a task's env must be its environment's id, '${envId}'`,
      { code: 'bad-tasks' },
    );
  return taskSet;
}

/** Refuses a plan that is not one (a branch that is not a list, an action without a tool...), naming the task. */
export function checkPlan(envId: string, which: string, taskId: string, plan: OraclePlan): OraclePlan {
  const parsed = PlanNode.array().safeParse(plan?.nodes);
  if (!parsed.success)
    throw new ConfigError(
      `environment ${envId}: ${which}(task ${taskId}) is not a plan: ${formatZodError(parsed.error)} (a path counts from the plan's nodes)`,
      { code: 'bad-plan' },
    );
  return plan;
}

const guarded = new WeakSet<object>();

/**
 * The environment with what it hands the commands checked as it comes: every task set it loads
 * (`checkTaskSet`), and each task's oracle and empty plans the first time they are asked for
 * (`checkPlan`). Built-in environments pass these checks by construction; a plug-in's mistakes are
 * then said at once, with the task, instead of surfacing later as a crash far from their cause.
 */
export function guardEnvironment<T extends Task>(environment: Environment<T>): Environment<T> {
  if (guarded.has(environment)) return environment;
  const checked = new Set<string>();
  const plans = (which: 'oraclePlan' | 'emptyPlan') => (task: T) => {
    const plan = environment[which](task);
    const key = `${which}\u0000${task.id}`;
    if (!checked.has(key)) {
      checkPlan(environment.id, which, task.id, plan);
      checked.add(key);
    }
    return plan;
  };
  const own: Partial<Environment<T>> = {
    loadTasks: async (source) => checkTaskSet(environment.id, await environment.loadTasks(source), source),
    oraclePlan: plans('oraclePlan'),
    emptyPlan: plans('emptyPlan'),
  };
  // A view of the environment, which stays as it was; a class's methods keep their `this`.
  const view = new Proxy(environment, {
    get(target, property) {
      if (Object.hasOwn(own, property)) return own[property as keyof typeof own];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  guarded.add(view);
  return view;
}
