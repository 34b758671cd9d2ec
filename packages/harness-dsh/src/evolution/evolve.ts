import {
  ConfigError,
  type Environment,
  evaluate,
  type HarnessSpec,
  isScored,
  type Policy,
  RunStore,
  type Task,
  type ToolSpec,
} from '@harness-s/core';
import { createHarness } from '../harness.js';
import { checkTrajectoryCompliance, validateVariant } from '../variants/compliance.js';
import { environmentExtras } from '../variants/extras.js';
import { type OperatorContext, proposeChanges } from '../variants/operators.js';
import { deriveVariant } from '../variants/patch.js';
import { mechanicsKey } from '../variants/variant-id.js';
import { createBuiltInAnalyser, type FailureAnalyser, isFailure } from './causes.js';
import { type CoverageCandidate, type SolvedRule, selectParents, solvedTasks } from './coverage.js';
import { groupIntoDirections } from './directions.js';
import { EvolveStore, type StoredCandidate } from './evolve-store.js';
import { describeTrajectory } from './llm-chat.js';
import type { ChangeProposer } from './llm-proposer.js';
import {
  type PoolIndex,
  type PoolSummary,
  type RoundRecord,
  summarisePool,
  type VariantRecord,
} from './pool-report.js';

/** What `evolvePool` reports as it goes. */
export type EvolveEvent =
  | { kind: 'round'; round: number; parents: string[]; children: number; resumed: boolean }
  | { kind: 'evaluation-start'; id: string; label: string; attempts: number; resumed: number }
  | { kind: 'attempt'; id: string; completed: number; total: number; successes: number }
  | { kind: 'evaluation-done'; id: string; status: 'accepted' | 'rejected'; coverage: number; reason?: string }
  | { kind: 'skip'; id: string; status: 'accepted' | 'rejected' }
  | { kind: 'log'; message: string };

export interface EvolveOptions<T extends Task = Task> {
  environment: Environment<T>;
  policy: Policy;
  /** The validation tasks the variants are compared on. */
  tasks: readonly T[];
  /** Where the tasks come from, for the records (e.g. `dev/validation`). */
  split: string;
  /** H0: the harness the variants descend from. */
  base: HarnessSpec;
  /** The pool folder. */
  out: string;
  /** Evolution rounds (default 3). */
  rounds?: number;
  /** Paired attempts per task and harness (default 3). */
  k?: number;
  /** The seed of every paired attempt, the same for H0 and each variant (default 0). */
  seed?: number;
  /** Attempts in flight at once (default 4). */
  concurrency?: number;
  /** Parents expanded per round (default 3). */
  parentsPerRound?: number;
  /** Repair directions per parent (default 4). */
  directionsPerParent?: number;
  /** Children per direction and source (default 2). */
  childrenPerDirection?: number;
  /** A task is solved in half of its k attempts (`majority`, the default) or in any. */
  solvedRule?: SolvedRule;
  /** Default: the environment's built-in analyser. */
  analyser?: FailureAnalyser;
  /** An LLM proposer whose changes are added to the operator library's for each direction. */
  proposer?: ChangeProposer;
  onEvent?: (event: EvolveEvent) => void;
  signal?: AbortSignal;
}

/** What `evolvePool` uses for an option not given (and `harness-s evolve` for a flag not given). */
export const evolveDefaults = {
  rounds: 3,
  k: 3,
  seed: 0,
  concurrency: 4,
  parentsPerRound: 3,
  directionsPerParent: 4,
  childrenPerDirection: 2,
  solvedRule: 'majority',
} as const satisfies Partial<EvolveOptions>;

/** The options given a value (an option set to undefined takes its default). */
const definedOnly = <O extends object>(options: O): O =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as O;

/** The tools an episode of the environment offers (one episode is opened and closed to learn them). */
async function environmentTools<T extends Task>(environment: Environment<T>, task: T): Promise<ToolSpec[]> {
  const episode = await environment.open(task);
  try {
    return [...episode.tools];
  } finally {
    await episode.close();
  }
}

/**
 * Directional harness evolution. Evaluates H0 on the validation tasks; then, each round, picks the
 * parents whose joint coverage of the validation tasks is largest (among variants not yet
 * expanded), analyses each parent's failed trajectories into causes, groups them into repair
 * directions, makes children per direction from the operator library (and the LLM proposer),
 * and evaluates every child with the same paired seeds as H0. Every executable, protocol-compliant
 * child joins the pool. Resumable: finished work in `out` is reused.
 */
export async function evolvePool<T extends Task>(given: EvolveOptions<T>): Promise<PoolSummary> {
  const options = { ...evolveDefaults, ...definedOnly(given) };
  const { environment, policy, base } = options;
  const emit = (event: EvolveEvent) => options.onEvent?.(event);
  const taskIds = options.tasks.map((task) => task.id);
  const store = await EvolveStore.open(options.out, {
    env: environment.id,
    split: options.split,
    validationTasks: taskIds,
    k: options.k,
    seed: options.seed,
    solvedRule: options.solvedRule,
    policy: { id: policy.id, version: policy.version },
    base: base.id,
  });
  const firstTask = options.tasks[0];
  if (!firstTask) throw new ConfigError('no validation tasks to evolve on', { code: 'no-tasks' });
  const envTools = await environmentTools(environment, firstTask);
  const h0Harness = createHarness(base, `base harness ${base.id}`);
  const analyser = options.analyser ?? createBuiltInAnalyser(environment.id);
  const context: OperatorContext = { skills: environment.skills, extras: environmentExtras(environment.id) };
  const skillNames = environment.skills.map((skill) => skill.name);

  const results = await store.results();
  const specs = new Map<string, StoredCandidate>([[base.id, { spec: base, round: 0, operator: 'base' }]]);
  const rounds = await store.rounds();
  for (const round of rounds) for (const id of round.children) specs.set(id, await store.candidate(id));
  const knownMechanics = new Set([...specs.values()].map((candidate) => mechanicsKey(candidate.spec)));

  const solvedSet = (record: VariantRecord) =>
    solvedTasks(
      Object.entries(record.validation?.perTask ?? {}).map(([id, successes]) => ({
        id,
        attempts: options.k,
        successes,
      })),
      options.solvedRule,
    );

  const writeReport = async (): Promise<PoolSummary> => {
    const records = [...specs.keys()].flatMap((id) =>
      id === base.id ? [] : results.has(id) ? [results.get(id) as VariantRecord] : [],
    );
    const index: PoolIndex = {
      schemaVersion: 1,
      env: environment.id,
      split: options.split,
      validationTasks: taskIds,
      k: options.k,
      seed: options.seed,
      solvedRule: options.solvedRule,
      policy: { id: policy.id, version: policy.version },
      h0: results.get(base.id) as VariantRecord,
      members: records.filter((record) => record.status === 'accepted'),
      rejected: records.filter((record) => record.status === 'rejected'),
      rounds,
    };
    const summary = summarisePool(index);
    await store.writeReport(index, summary);
    return summary;
  };

  /** Evaluates one harness (resuming its recorded attempts) and records whether it joins the pool. */
  const evaluateCandidate = async (candidate: StoredCandidate): Promise<VariantRecord> => {
    const { spec } = candidate;
    const lineage = {
      id: spec.id,
      parent: spec.parent,
      direction: spec.direction,
      round: candidate.round,
      description: spec.description,
      operator: candidate.operator,
    };
    const reject = (reason: string): VariantRecord => ({ ...lineage, status: 'rejected', reason });
    if (candidate.round > 0) {
      try {
        validateVariant(spec, spec.id, { envTools, skills: skillNames, base });
      } catch (error) {
        return reject((error as Error).message);
      }
    }
    const resumeFrom = await store.trajectories(spec.id);
    emit({
      kind: 'evaluation-start',
      id: spec.id,
      label: spec.description,
      attempts: taskIds.length * options.k,
      // Attempts recorded without a score are run again (see `evaluate`).
      resumed: resumeFrom.filter(isScored).length,
    });
    const runStore = await RunStore.create(store.runDir(spec.id), {
      harness: spec,
      k: options.k,
      seed: options.seed,
      split: options.split,
    });
    let outcome: Awaited<ReturnType<typeof evaluate>>;
    try {
      outcome = await evaluate({
        environment,
        taskSet: { tasks: [...options.tasks], unloadable: [] },
        split: options.split,
        harness: createHarness(spec, spec.id),
        policy,
        k: options.k,
        seed: options.seed,
        pairedSeeds: true,
        concurrency: options.concurrency,
        runId: spec.id,
        store: runStore,
        resumeFrom,
        onProgress: (progress) =>
          emit({
            kind: 'attempt',
            id: spec.id,
            completed: progress.completed,
            total: progress.total,
            successes: progress.successes,
          }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted || candidate.round === 0) throw error;
      return reject(`not executable: ${(error as Error).message}`);
    } finally {
      await runStore.close();
    }
    const { summary, trajectories } = outcome;
    if (summary.unscoredAttempts === summary.tasks * options.k) {
      return reject('not executable: every attempt failed with an infrastructure error');
    }
    if (candidate.round > 0) {
      const compliance = checkTrajectoryCompliance(trajectories, h0Harness, envTools);
      if (!compliance.ok) return reject(`protocol: ${compliance.reason}`);
    }
    return {
      ...lineage,
      status: 'accepted',
      validation: {
        perTask: Object.fromEntries(summary.perTask.map((task) => [task.id, task.successes])),
        avgAtK: summary.avgAtK,
      },
    };
  };

  const ensureEvaluated = async (id: string): Promise<VariantRecord> => {
    const known = results.get(id);
    if (known) {
      emit({ kind: 'skip', id, status: known.status });
      return known;
    }
    const candidate = specs.get(id) as StoredCandidate;
    const record = await evaluateCandidate(candidate);
    await store.writeResult(record, record.status === 'accepted' ? candidate.spec : null);
    results.set(id, record);
    emit({
      kind: 'evaluation-done',
      id,
      status: record.status,
      coverage: record.status === 'accepted' ? solvedSet(record).size / taskIds.length : 0,
      ...(record.reason ? { reason: record.reason } : {}),
    });
    await writeReport();
    return record;
  };

  const analyse = async (id: string) => {
    const cached = await store.analyses(id);
    if (cached) return cached;
    const spec = (specs.get(id) as StoredCandidate).spec;
    const failed = (await store.trajectories(id)).filter(isFailure).sort((a, b) => a.id.localeCompare(b.id));
    const analyses = [];
    for (const trajectory of failed) analyses.push(await analyser.analyse(trajectory, spec));
    await store.writeAnalyses(id, analyses);
    return analyses;
  };

  /** Children of the chosen parents, new in mechanics, in a stable order. */
  const makeChildren = async (round: number, parents: readonly string[]): Promise<StoredCandidate[]> => {
    const children: StoredCandidate[] = [];
    for (const parentId of parents) {
      const parent = (specs.get(parentId) as StoredCandidate).spec;
      const analyses = await analyse(parentId);
      const directions = groupIntoDirections(analyses).slice(0, options.directionsPerParent);
      for (const direction of directions) {
        const library = proposeChanges(parent, direction, context);
        const proposed = options.proposer
          ? await options.proposer.propose(
              parent,
              direction,
              (await store.trajectories(parentId))
                .filter((trajectory) => isFailure(trajectory) && direction.tasks.includes(trajectory.taskId))
                .slice(0, 3)
                .map((trajectory) => describeTrajectory(trajectory)),
            )
          : [];
        for (const source of [library, proposed]) {
          let taken = 0;
          for (const change of source) {
            if (taken >= options.childrenPerDirection) break;
            let child: HarnessSpec;
            try {
              child = deriveVariant(base, parent, change);
            } catch (error) {
              emit({ kind: 'log', message: `${change.operator} for ${direction.name}: ${(error as Error).message}` });
              continue;
            }
            const key = mechanicsKey(child);
            if (knownMechanics.has(key)) continue;
            knownMechanics.add(key);
            children.push({ spec: child, round, operator: change.operator });
            taken += 1;
          }
        }
      }
    }
    return children;
  };

  await ensureEvaluated(base.id);
  for (let round = 1; round <= options.rounds; round += 1) {
    options.signal?.throwIfAborted();
    let record = rounds.find((item) => item.round === round);
    const resumed = record !== undefined;
    if (!record) {
      const expanded = new Set(rounds.flatMap((item) => item.parents));
      const candidates: CoverageCandidate[] = [...results.values()]
        .filter((item) => item.status === 'accepted' && !expanded.has(item.id))
        .map((item) => ({ id: item.id, solved: solvedSet(item) }));
      if (candidates.length === 0) {
        emit({ kind: 'log', message: `round ${round}: every variant has been expanded; stopping` });
        break;
      }
      const selection = selectParents(candidates, options.parentsPerRound);
      const children = await makeChildren(round, selection.ids);
      for (const child of children) {
        await store.writeCandidate(child);
        specs.set(child.spec.id, child);
      }
      record = {
        round,
        parents: selection.ids,
        selection: { method: selection.method, covered: selection.covered },
        children: children.map((child) => child.spec.id),
      } satisfies RoundRecord;
      rounds.push(record);
      await store.writeRounds(rounds);
    }
    emit({ kind: 'round', round, parents: record.parents, children: record.children.length, resumed });
    for (const id of record.children) await ensureEvaluated(id);
  }
  const summary = await writeReport();
  await store.finish();
  return summary;
}
