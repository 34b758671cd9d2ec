import { deriveSeed, Random } from '../random.js';
import type { Task } from '../task.js';

/** The tasks of a step: consecutive slices of a per-epoch shuffle of the training tasks. */
export function batchFor<T extends Task>(train: readonly T[], step: number, batchSize: number, seed: number): T[] {
  const batch: T[] = [];
  const orders = new Map<number, T[]>();
  for (let slot = 0; slot < batchSize; slot += 1) {
    const index = (step - 1) * batchSize + slot;
    const epoch = Math.floor(index / train.length);
    let order = orders.get(epoch);
    if (!order) {
      order = [...train];
      const random = new Random(deriveSeed(seed, 'epoch', epoch));
      for (let i = order.length - 1; i > 0; i -= 1) {
        const j = random.int(i + 1);
        [order[i], order[j]] = [order[j] as T, order[i] as T];
      }
      orders.set(epoch, order);
    }
    batch.push(order[index % train.length] as T);
  }
  return batch;
}

/** The `perTask` consecutive items of task `slot` in a list laid out task by task. */
export const groupSlice = <V>(slot: number, list: readonly V[], perTask: number): V[] =>
  list.slice(slot * perTask, (slot + 1) * perTask);
