import { createCounterEnvironment } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { guardEnvironment } from './environment-guard.js';

describe("an environment's tasks and plans, checked as they come", () => {
  it('refuses a task id given twice, and a task of another environment, naming them', async () => {
    const { environment } = createCounterEnvironment();
    const loadTasks = environment.loadTasks.bind(environment);
    let mutate = (tasks: Awaited<ReturnType<typeof loadTasks>>['tasks']) => tasks;
    environment.loadTasks = async (source) => {
      const loaded = await loadTasks(source);
      return { ...loaded, tasks: mutate(loaded.tasks) };
    };
    const guarded = guardEnvironment(environment);
    const { tasks } = await guarded.loadTasks({ split: 'dev' });
    expect(tasks.length).toBeGreaterThan(2);

    mutate = (loaded) => [...loaded, loaded[0] as (typeof loaded)[number]];
    await expect(guarded.loadTasks({ split: 'dev' })).rejects.toThrow(
      `environment counter, split dev: 1 task id given more than once (${tasks[0]?.id}); every task needs an id of its own`,
    );
    mutate = (loaded) => loaded.map((task, index) => (index === 1 ? { ...task, env: 'other' } : task));
    await expect(guarded.loadTasks({ file: 'tasks.jsonl' })).rejects.toThrow(
      `environment counter, file tasks.jsonl: task ${tasks[1]?.id} has env 'other'; a task's env must be its environment's id, 'counter'`,
    );
  });

  it('refuses a plan that is not one, naming the task and the place', async () => {
    const { environment } = createCounterEnvironment();
    const [task] = (await environment.loadTasks({ split: 'dev' })).tasks;
    if (!task) throw new Error('no task');
    const good = environment.oraclePlan(task);
    environment.oraclePlan = () =>
      ({
        nodes: [{ kind: 'decide', skill: 'carry', right: good.nodes[0], wrong: [] }],
      }) as never;
    const guarded = guardEnvironment(environment);
    expect(() => guarded.oraclePlan(task)).toThrow(
      new RegExp(`^environment counter: oraclePlan\\(task ${task.id}\\) is not a plan: 0\\.right: .*array`),
    );
    // The empty plan is checked on its own, and a good one goes through as it is.
    expect(guarded.emptyPlan(task)).toEqual(environment.emptyPlan(task));
  });

  it('is a view: the environment stays as it was, and a guarded one is not guarded again', async () => {
    const { environment } = createCounterEnvironment();
    const loadTasks = environment.loadTasks;
    const guarded = guardEnvironment(environment);
    expect(environment.loadTasks).toBe(loadTasks);
    expect(guardEnvironment(guarded)).toBe(guarded);
    expect(guarded.id).toBe('counter');
    // What the view does not check is the environment's own, a name Object has too included.
    Object.assign(environment, { valueOf: () => 'its own' });
    expect((guarded as unknown as { valueOf(): unknown }).valueOf()).toBe('its own');
    expect((await guarded.loadTasks({ split: 'dev' })).tasks.map((task) => task.id)).toEqual([
      'count-1',
      'count-2',
      'count-3',
    ]);
  });
});
