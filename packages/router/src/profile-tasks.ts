import { ConfigError, deriveSeed, Random, type Task } from '@harness-s/core';
import { taskFeatures } from './profiles.js';

/** Refuses a number of profile tasks that is not a positive integer. */
export function checkProfileTaskCount(count: number): void {
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(`the number of profile tasks must be a positive integer, got ${count}`, {
      code: 'bad-router-config',
    });
}

/**
 * The validation tasks to anchor profiles on when not all of them can be run: `count` of them, each
 * pick the task that adds the most features (category, difficulty, tags) not yet covered, a feature
 * counting the more the fewer tasks have it (so a rare category is not left out for a common
 * difficulty), ties broken by a shuffle from `seed`. Once no task left adds a feature, covering
 * starts over, so a larger sample spreads over the features again; tasks without features come
 * last. The rankers compare a task with the validation tasks that share its features, so the
 * sample keeps evidence for as many features as the count allows (a greedy cover: not always the
 * smallest). The same tasks, seed and count give the same sample, in the validation split's order;
 * `count` at or above the number of tasks gives them all.
 */
export function chooseProfileTasks<T extends Task>(tasks: readonly T[], count: number, seed: number): T[] {
  checkProfileTaskCount(count);
  if (count >= tasks.length) return [...tasks];
  const random = new Random(deriveSeed(seed, 'profile-tasks'));
  // A Fisher-Yates shuffle of the positions: the order ties are broken in.
  const order = tasks.map((_, index) => index);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const features = tasks.map((task) => [...new Set(taskFeatures(task))]);
  // A feature's worth: one over the number of tasks that have it.
  const holders = new Map<string, number>();
  for (const feature of features.flat()) holders.set(feature, (holders.get(feature) ?? 0) + 1);
  const chosen = new Set<number>();
  let covered = new Set<string>();
  while (chosen.size < count) {
    let best = -1;
    let bestGain = -1;
    for (const index of order) {
      if (chosen.has(index)) continue;
      const gain = (features[index] ?? [])
        .filter((feature) => !covered.has(feature))
        .reduce((sum, feature) => sum + 1 / (holders.get(feature) ?? 1), 0);
      if (gain > bestGain) [best, bestGain] = [index, gain];
    }
    if (bestGain === 0 && covered.size > 0) {
      // Every feature left is covered: start the count over.
      covered = new Set();
      continue;
    }
    chosen.add(best);
    for (const feature of features[best] ?? []) covered.add(feature);
  }
  return tasks.filter((_, index) => chosen.has(index));
}
