import type { Action, StepResult } from '../action.js';
import type { Environment, Episode } from '../environment.js';
import { InfrastructureError } from '../errors.js';
import type { Evaluation } from '../evaluation.js';
import type { ToolSpec } from '../message.js';
import type { OraclePlan } from '../plan.js';
import type { Task } from '../task.js';

/** A task of the counter environment: reach `target` by adding, then submit. */
export interface CounterTask extends Task {
  target: number;
}

const tools: ToolSpec[] = [
  {
    name: 'add',
    description: 'Add n to the counter.',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
  { name: 'submit', description: 'End the task.', parameters: { type: 'object', properties: {} } },
];

export interface CounterEnvironmentOptions {
  /** Opening fails with an InfrastructureError this many times before it works. */
  failOpens?: number;
  /** The environment's id, which its tasks name as their env (default `counter`). */
  id?: string;
}

/**
 * A tiny environment for testing the agent loop and the contract suite: a counter starting at 0;
 * `add(n)` changes it, `submit()` ends the episode; success when it equals the task's target.
 * It counts open and closed episodes so tests can check that every episode is released.
 */
export function createCounterEnvironment(options: CounterEnvironmentOptions = {}) {
  let failuresLeft = options.failOpens ?? 0;
  const stats = { opened: 0, closed: 0 };
  const id = options.id ?? 'counter';
  const tasks: CounterTask[] = [1, 2, 3].map((target) => ({
    id: `count-${target}`,
    env: id,
    split: 'dev',
    instruction: `Make the counter equal ${target}, then submit.`,
    tags: [],
    target,
  }));

  const environment: Environment<CounterTask> = {
    id,
    splits: ['dev'],
    skills: [{ name: 'count', description: 'add the right amount' }],
    async loadTasks() {
      return { tasks, unloadable: [{ id: 'count-bad', reason: 'a deliberately unloadable record' }] };
    },
    async open(task): Promise<Episode<CounterTask>> {
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new InfrastructureError('counter service unavailable', { code: 'counter-down' });
      }
      stats.opened += 1;
      let value = 0;
      let closed = false;
      return {
        task,
        tools,
        async step(action: Action): Promise<StepResult> {
          if (action.tool === 'add') {
            const n = action.arguments['n'];
            if (typeof n !== 'number') {
              return {
                observation: 'add needs an integer n',
                done: false,
                error: { kind: 'bad-arguments', message: 'n' },
              };
            }
            value += n;
            return { observation: `counter = ${value}`, done: false };
          }
          if (action.tool === 'submit') return { observation: 'submitted', done: true };
          return {
            observation: `unknown tool ${action.tool}`,
            done: false,
            error: { kind: 'unknown-tool', message: action.tool },
          };
        },
        async evaluate(): Promise<Evaluation> {
          const success = value === task.target;
          return {
            reward: success ? 1 : 0,
            success,
            checks: [{ name: 'target', passed: success, detail: `${value} vs ${task.target}` }],
            details: {},
          };
        },
        async close() {
          if (!closed) stats.closed += 1;
          closed = true;
        },
      };
    },
    oraclePlan(task): OraclePlan {
      return {
        taskId: task.id,
        nodes: [
          {
            kind: 'decide',
            skill: 'count',
            right: [{ kind: 'act', action: { tool: 'add', arguments: { n: task.target } } }],
            wrong: [{ kind: 'act', action: { tool: 'add', arguments: { n: task.target + 1 } } }],
          },
          { kind: 'act', action: { tool: 'submit', arguments: {} } },
        ],
      };
    },
    emptyPlan(task): OraclePlan {
      return { taskId: task.id, nodes: [{ kind: 'act', action: { tool: 'submit', arguments: {} } }] };
    },
    async close() {},
  };
  return { environment, stats };
}
