import { readFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import {
  Action,
  ConfigError,
  type Environment,
  type Evaluation,
  InputError,
  parseWith,
  Trajectory,
} from '@harness-s/core';
import { z } from 'zod';
import { createEnvironment, defaultSplit, environmentOptions } from '../environments.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { loadSplitTasks, otherSplitsOf } from '../task-splits.js';

export interface ReplayFlags {
  env: string;
  task: string;
  actions: string;
  split?: string;
  data?: string;
  attempt?: number;
  harness?: string;
  scoring?: string;
  /** Where dbbench episodes run (default `pglite:`). */
  db?: string;
  /** swegym: `docker` (default) or `local`, which needs `unconfined`: replayed actions may be a model's. */
  sandbox?: string;
  unconfined?: boolean;
}

export interface ReplayStep {
  action: Action;
  observation: string;
  done: boolean;
}

/**
 * Reads actions from a file: a JSON array of actions, JSONL with one action per line, or a run's
 * trajectories (a run folder's `trajectories.jsonl`), from which the task's attempt is taken.
 */
export async function readActions(path: string, taskId: string, attempt = 0, harnessId?: string): Promise<Action[]> {
  let text: string;
  try {
    text = await readFile(path.endsWith('/') || !path.includes('.') ? `${path}/trajectories.jsonl` : path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read actions from ${path}: ${(error as Error).message}`, { code: 'file-unreadable' });
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      throw new InputError(`${path}: not valid JSON (${(error as Error).message})`, { code: 'bad-json' });
    }
    return parseWith(z.array(Action), value, path);
  }
  const values = trimmed.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    try {
      return [{ line: index + 1, value: JSON.parse(line) as unknown }];
    } catch (error) {
      throw new InputError(`${path}:${index + 1}: not valid JSON (${(error as Error).message})`, { code: 'bad-jsonl' });
    }
  });
  const first = values[0]?.value;
  if (typeof first === 'object' && first !== null && 'turns' in first) {
    const trajectories = values.map(({ line, value }) => parseWith(Trajectory, value, `${path}:${line}`));
    const match = trajectories.find(
      (item) =>
        item.taskId === taskId && item.attempt === attempt && (harnessId === undefined || item.harnessId === harnessId),
    );
    if (!match)
      throw new InputError(`${path}: no trajectory of task ${taskId}, attempt ${attempt}`, { code: 'no-trajectory' });
    return match.turns.flatMap((turn) => turn.actions.map((record) => record.action));
  }
  return values.map(({ line, value }) => parseWith(Action, value, `${path}:${line}`));
}

/** `harness-s replay`: runs a list of actions against a fresh episode and prints what happens. */
export async function runReplay(
  flags: ReplayFlags,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  /** An open environment to reuse (it is then left open); by default one is made and closed. */
  shared?: Environment,
) {
  const environment = shared ?? createEnvironment(flags.env, environmentOptions(flags));
  // SIGINT or SIGTERM stops after the action running, and closes the episode and the environment
  // (a container, a database and its roles) before exiting.
  const interrupts = shared ? undefined : listenForInterrupts({ leftovers: leftoversOf(flags.env, flags) });
  try {
    const split = flags.split ?? defaultSplit(environment);
    const taskSet = flags.data
      ? await environment.loadTasks({ file: flags.data })
      : (await loadSplitTasks(environment, split)).taskSet;
    const task = taskSet.tasks.find((item) => item.id === flags.task);
    if (!task) {
      const unloadable = taskSet.unloadable.find((item) => item.id === flags.task);
      throw new ConfigError(
        unloadable
          ? `task ${flags.task} cannot be loaded: ${unloadable.reason}`
          : `--task: no task ${flags.task} in ${flags.data ?? `split ${split}`}${await otherSplitsOf(environment, [flags.task], flags.data ? undefined : split)}`,
        { code: 'bad-flag' },
      );
    }
    const actions = await readActions(flags.actions, flags.task, flags.attempt ?? 0, flags.harness);
    const episode = await environment.open(task);
    const steps: ReplayStep[] = [];
    let evaluation: Evaluation;
    try {
      print(`Task ${task.id}: ${task.instruction}`);
      for (const [index, action] of actions.entries()) {
        // A turn of the event loop, where a signal is heard: an embedded engine's steps may never wait on I/O.
        await setImmediate();
        if (interrupts?.signal.aborted)
          throw new ConfigError(`interrupted before action ${index + 1} of ${actions.length}; nothing was evaluated`, {
            code: 'interrupted',
          });
        const result = await episode.step(action);
        steps.push({ action, observation: result.observation, done: result.done });
        print(`\n[${index + 1}] ${action.tool} ${JSON.stringify(action.arguments)}`);
        print(`=> ${result.observation}`);
        if (result.done) {
          if (index < actions.length - 1)
            print(`(episode done; ${actions.length - index - 1} remaining actions not run)`);
          break;
        }
      }
      evaluation = await episode.evaluate();
    } finally {
      await episode.close();
    }
    print(`\nEvaluation: ${evaluation.success ? 'SUCCESS' : 'FAILURE'} (reward ${evaluation.reward})`);
    for (const check of evaluation.checks)
      print(`  ${check.passed ? 'pass' : 'FAIL'} ${check.name}${check.detail ? `: ${check.detail}` : ''}`);
    return { steps, evaluation };
  } finally {
    if (interrupts) await interrupts.releaseAfter(() => environment.close());
  }
}
