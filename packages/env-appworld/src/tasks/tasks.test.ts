import { mapConcurrent, type PlanNode, planSkills, rightPath } from '@harness-s/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppWorldEnvironment } from '../environment.js';
import { runActions, walkPlan } from '../plan-runner.js';
import { SandboxWorkerPool } from '../sandbox/worker-pool.js';
import { allScenarios } from './index.js';
import { appworldSkills } from './plan-steps.js';
import type { AppWorldTask } from './types.js';

const pool = new SandboxWorkerPool(2);
const environment = createAppWorldEnvironment({ pool });
const tasks = environment.world.tasks.map((item) => item.task);
afterAll(() => environment.close());

const scenarioOf = (task: AppWorldTask) => task.tags[0] ?? '';
const byScenario = (name: string) => allScenarios.find((scenario) => scenario.name === name);

describe('the embedded task set', () => {
  it('has at least 60 tasks in at least 20 scenarios, three variants each, ids {7 hex}_{1..3}', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(60);
    const scenarios = new Set(tasks.map((task) => task.scenarioId));
    expect(scenarios.size).toBeGreaterThanOrEqual(20);
    for (const task of tasks) {
      expect(task.id).toMatch(/^[0-9a-f]{7}_[1-3]$/);
      expect(task.id).toBe(`${task.scenarioId}_${task.variant}`);
      expect([1, 2, 3]).toContain(task.difficulty);
      expect(task.instruction).toMatch(/^My name is .+\nTask: /);
    }
    expect(new Set(tasks.map((task) => task.id)).size).toBe(tasks.length);
    // A scenario's variants stay in one split.
    for (const scenario of scenarios)
      expect(new Set(tasks.filter((task) => task.scenarioId === scenario).map((task) => task.split)).size).toBe(1);
    for (const split of ['train', 'dev', 'test'])
      expect(tasks.filter((task) => task.split === split).length).toBeGreaterThanOrEqual(15);
  });

  it('puts the two transfer cases in train, and different scenarios of the same kinds in test', () => {
    for (const kind of ['intersection', 'account-recovery']) {
      const train = allScenarios
        .filter((scenario) => scenario.split === 'train' && scenario.tags.includes(kind))
        .map((scenario) => scenario.name);
      const test = allScenarios
        .filter((scenario) => scenario.split === 'test' && scenario.tags.includes(kind))
        .map((scenario) => scenario.name);
      expect(train.length).toBeGreaterThan(0);
      expect(test.length).toBeGreaterThan(0);
      expect(train.filter((name) => test.includes(name))).toEqual([]);
    }
    // Account recovery happens on different services in train and test.
    const recoveryApps = (split: string) =>
      allScenarios
        .filter((scenario) => scenario.split === split && scenario.tags.includes('account-recovery'))
        .map((scenario) => scenario.family);
    expect(recoveryApps('train').filter((app) => recoveryApps('test').includes(app))).toEqual([]);
    // The train intersection case's plan really has an intersect-not-union decision.
    const trainIntersection = allScenarios.find(
      (scenario) => scenario.split === 'train' && scenario.tags.includes('intersection'),
    );
    const sample = tasks.find((task) => scenarioOf(task) === trainIntersection?.name);
    expect(sample && planSkills(environment.oraclePlan(sample).nodes)).toContain('intersect-not-union');
  });

  it('names only known skills at decision points, and every skill somewhere', () => {
    const known = appworldSkills.map((skill) => skill.name);
    const used = new Set(tasks.flatMap((task) => planSkills(environment.oraclePlan(task).nodes)));
    for (const skill of used) expect(known).toContain(skill);
    expect([...used].sort()).toEqual([...known].sort());
    expect(byScenario('recover-shop')?.split).toBe('test');
  });
});

/** The plan with one skill taken wrong everywhere (and no recovery), every other skill right. */
const flip = (nodes: readonly PlanNode[], skill: string) =>
  walkPlan(nodes, (name) => name !== skill && name !== 'recover-from-error');

describe('oracle plans and their wrong branches, run for real', () => {
  it('solves every task of every split with its oracle plan', async () => {
    const failed: string[] = [];
    await mapConcurrent(tasks, 2, async (task) => {
      const { evaluation } = await runActions(environment, task, rightPath(environment.oraclePlan(task).nodes));
      if (!evaluation.success)
        failed.push(`${task.id} ${JSON.stringify(evaluation.checks.filter((check) => !check.passed))}`);
    });
    expect(failed).toEqual([]);
  }, 600_000);

  it('fails a task when any one skill goes wrong without recovery (one variant per scenario)', async () => {
    const firstVariants = tasks.filter((task) => task.variant === 1);
    const cases = firstVariants.flatMap((task) =>
      planSkills(environment.oraclePlan(task).nodes)
        .filter((skill) => skill !== 'recover-from-error')
        .map((skill) => ({ task, skill })),
    );
    const solved: string[] = [];
    const observations: string[] = [];
    await mapConcurrent(cases, 2, async ({ task, skill }) => {
      const { results, evaluation } = await runActions(
        environment,
        task,
        flip(environment.oraclePlan(task).nodes, skill),
      );
      if (evaluation.success) solved.push(`${task.id} despite wrong ${skill}`);
      observations.push(...results.map((result) => result.observation));
    });
    expect(solved).toEqual([]);
    // Skipping a doc shows the 422 a wrong parameter gets.
    expect(
      observations.some((text) =>
        /Exception: Response status code is 422: \{"message": "Validation error: unexpected parameter/.test(text),
      ),
    ).toBe(true);
    // Guessing a password shows the 401.
    expect(observations.some((text) => text.includes('Response status code is 401'))).toBe(true);
  }, 600_000);

  it('recovers from a skipped doc or a guessed password when recover-from-error goes right', async () => {
    const task = tasks.find(
      (item) => scenarioOf(item) === 'count-artist-library' && item.variant === 1,
    ) as AppWorldTask;
    const nodes = environment.oraclePlan(task).nodes;
    for (const skill of ['lookup-api-doc', 'ask-supervisor']) {
      const { results, evaluation } = await runActions(
        environment,
        task,
        walkPlan(nodes, (name) => name !== skill),
      );
      expect(results.some((result) => result.error !== undefined)).toBe(true);
      expect(evaluation.success).toBe(true);
    }
  }, 120_000);
});
