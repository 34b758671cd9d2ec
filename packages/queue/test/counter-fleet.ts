/**
 * Test fixtures: the counter environment of core's test kit, a seeded policy that travels as data,
 * and the factories a rollout worker needs for them. A task can be made poisonous: its attempts
 * throw, or kill the worker process outright.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AttemptRequest, deriveSeed, type Harness, type Policy, type Trajectory } from '@harness-s/core';
import { type CounterTask, createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import type { RolloutFactories } from '../src/index.js';

/**
 * A policy for the counter: adds the right amount with probability `skill` (drawn from the
 * attempt's seed), then submits. It describes itself fully, so a worker can rebuild it.
 */
export function createSeededCounterPolicy(skill: number): Policy {
  return {
    id: 'seeded-counter',
    version: `seeded-counter@${skill}`,
    needsPlan: false,
    describe: () => ({ kind: 'seeded-counter', skill }),
    startEpisode(context) {
      const task = context.task as CounterTask;
      const right = deriveSeed(context.seed, 'count') / 4294967296 < skill;
      let turn = 0;
      return {
        async respond() {
          turn += 1;
          const call =
            turn === 1
              ? { name: 'add', arguments: JSON.stringify({ n: right ? task.target : task.target + 1 }) }
              : { name: 'submit', arguments: '{}' };
          return {
            message: { role: 'assistant', content: '', toolCalls: [{ id: `call_${turn}`, ...call }] },
            usage: { promptTokens: 10, completionTokens: 5 },
          };
        },
      };
    },
  };
}

export interface PoisonOptions {
  /** Attempts at this task id throw an ordinary error (a bug), every time. */
  throwOn?: string;
  /** Attempts at this task id end the worker process (exit code 70), every time. */
  crashOn?: string;
  /** Opening an episode takes this long, so that a test can stop a worker in the middle of an attempt. */
  slowMs?: number;
}

/** The factories of a counter worker. */
export function counterFactories(poison: PoisonOptions = {}): RolloutFactories {
  const { environment } = createCounterEnvironment();
  const open = environment.open.bind(environment);
  environment.open = async (task, options) => {
    if (task.id === poison.crashOn) process.exit(70);
    if (task.id === poison.throwOn) throw new TypeError(`poisoned task ${task.id}`);
    if (poison.slowMs) await sleep(poison.slowMs);
    return open(task, options);
  };
  const harness: Harness = createPlainHarness();
  return {
    environment: environment as unknown as RolloutFactories['environment'],
    harness: () => harness,
    policy: (description) => createSeededCounterPolicy(Number(description['skill'])),
  };
}

/** `count` requests over the three counter tasks, with ids and seeds like the training loop's. */
export async function counterRequests(count: number, step = 1): Promise<AttemptRequest<CounterTask>[]> {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const harness = createPlainHarness();
  return Array.from({ length: count }, (_, index) => {
    const task = tasks[index % tasks.length] as CounterTask;
    const attempt = Math.floor(index / tasks.length);
    return {
      attemptId: `${step}:${task.id}#${harness.spec.id}#${attempt}`,
      task,
      harness,
      attempt,
      seed: deriveSeed(7, step, task.id, attempt),
    };
  });
}

/**
 * A trajectory without what differs between runs of the same attempt: its clock readings, and
 * where it ran (`ranOn`, set for attempts that ran on a rollout worker).
 */
export const withoutRunDetails = (trajectory: Trajectory): unknown =>
  JSON.parse(
    JSON.stringify(trajectory, (key, value) =>
      key === 'timings' || key === 'latencyMs' || key === 'ranOn' ? undefined : value,
    ),
  );
