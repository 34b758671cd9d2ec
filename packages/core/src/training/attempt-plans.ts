import { ConfigError, failureOf, shownValue } from '../errors.js';
import type { Harness } from '../harness.js';
import { deriveSeed, Random } from '../random.js';
import type { Task } from '../task.js';
import type { Trajectory } from '../trajectory.js';
import type { RescueRequest, RescueRouter } from './router.js';
import { rescueShape, type TrainConfig } from './train-config.js';

/** One attempt a training step runs: where, under which harness, and what its seed derives from. */
export interface AttemptPlan<T extends Task> {
  task: T;
  /** The task's place in the step's batch (a task may hold two places where an epoch ends). */
  slot: number;
  harness: Harness;
  attempt: number;
  role: 'base' | 'rescue';
  seedParts: Array<string | number>;
}

/** K attempts per task of the batch, under H0, or rotated over the fixed mixture (`mixture`). */
export function basePlans<T extends Task>(
  batch: readonly T[],
  config: TrainConfig,
  h0: Harness,
  mixture: readonly Harness[],
): AttemptPlan<T>[] {
  return batch.flatMap((task, slot) =>
    Array.from({ length: config.k }, (_, attempt) => {
      const harness =
        config.method === 'mixture' ? (mixture[(slot * config.k + attempt) % mixture.length] as Harness) : h0;
      return { task, slot, harness, attempt, role: 'base' as const, seedParts: [slot, 'base', attempt] };
    }),
  );
}

/** The router's choice; its failure (thrown or rejected) named by router, task and step. */
async function selectNamed<T extends Task>(
  router: RescueRouter<T>,
  task: T,
  step: number,
  request: RescueRequest<T>,
): Promise<string[]> {
  let chosen: unknown;
  try {
    chosen = await router.select(request);
  } catch (error) {
    throw failureOf(`router ${router.id} failed on task ${task.id} (step ${step})`, error);
  }
  if (!Array.isArray(chosen) || chosen.some((id) => typeof id !== 'string'))
    throw new ConfigError(
      `router ${router.id} answered ${shownValue(chosen)} for task ${task.id} (step ${step}); select must resolve to an array of variant ids`,
      { code: 'bad-route' },
    );
  return chosen;
}

/**
 * The rescue group of every triggered slot (an empty list for the others): `harness-s` asks the
 * router for distinct variants, `h0-resample` takes fresh attempts under H0. The shape is
 * variants x attempts per variant; a router answer outside the pool is an error.
 */
export async function rescuePlans<T extends Task>(options: {
  batch: readonly T[];
  triggered: readonly boolean[];
  config: TrainConfig;
  step: number;
  h0: Harness;
  pool: readonly Harness[];
  router: RescueRouter<T>;
  /** A slot's failed attempts under H0, handed to the router. */
  failures?: (slot: number) => readonly Trajectory[];
}): Promise<AttemptPlan<T>[][]> {
  const { batch, triggered, config, step, h0, pool, router, failures } = options;
  const shape = rescueShape(config);
  const poolById = new Map(pool.map((harness) => [harness.spec.id, harness]));
  const plans: AttemptPlan<T>[][] = [];
  for (const [slot, task] of batch.entries()) {
    if (!triggered[slot]) {
      plans.push([]);
      continue;
    }
    const harnesses =
      config.method === 'harness-s'
        ? (
            await selectNamed(router, task, step, {
              task,
              pool: pool.map((harness) => harness.spec),
              count: shape.variants,
              step,
              random: new Random(deriveSeed(config.seed, step, slot, 'route')),
              ...(failures ? { failures: failures(slot) } : {}),
            })
          ).map((id, index, ids) => {
            if (ids.length > shape.variants)
              throw new ConfigError(
                `router ${router.id} chose ${ids.length} variants for ${task.id} (step ${step}); a rescue asks for at most ${shape.variants}`,
                { code: 'bad-route' },
              );
            const harness = poolById.get(id);
            if (!harness)
              throw new ConfigError(
                `router ${router.id} chose '${id}' for ${task.id} (step ${step}), which is not in the pool (${shownValue(pool.map((variant) => variant.spec.id))})`,
                { code: 'bad-route' },
              );
            if (ids.indexOf(id) !== index)
              throw new ConfigError(
                `router ${router.id} chose '${id}' twice for ${task.id} (step ${step}); a rescue set is distinct variants`,
                {
                  code: 'bad-route',
                },
              );
            return harness;
          })
        : Array.from({ length: shape.variants }, () => h0);
    // A pool with fewer variants than the rescue shape asks for: the chosen ones take the missing
    // places in turn, so a rescue group always has variants x attempts attempts, as h0-resample's.
    const rounds = Math.max(1, harnesses.length);
    const filled = Array.from(
      { length: harnesses.length ? shape.variants : 0 },
      (_, index) => harnesses[index % rounds] as Harness,
    );
    plans.push(
      filled.flatMap((harness, variantIndex) =>
        Array.from({ length: shape.attemptsPerVariant }, (_, repeat) => ({
          task,
          slot,
          harness,
          attempt:
            config.method === 'h0-resample'
              ? config.k + variantIndex * shape.attemptsPerVariant + repeat
              : Math.floor(variantIndex / rounds) * shape.attemptsPerVariant + repeat,
          role: 'rescue' as const,
          seedParts: [slot, 'rescue', variantIndex, repeat],
        })),
      ),
    );
  }
  return plans;
}

/**
 * The group id of each place in a step's batch: `<step>:<taskId>`, and for a task's n-th place in
 * the same batch (a batch that spans the end of an epoch may draw a task again) `<step>:<taskId>@n`,
 * so every group, and every attempt (`<groupId>#<harness>#<attempt>`), has an id of its own.
 */
export function groupIdsOf(batch: readonly Task[], step: number): string[] {
  const seen = new Map<string, number>();
  return batch.map((task) => {
    const place = (seen.get(task.id) ?? 0) + 1;
    seen.set(task.id, place);
    return place === 1 ? `${step}:${task.id}` : `${step}:${task.id}@${place}`;
  });
}
