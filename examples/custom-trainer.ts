/**
 * Composing a training stack from the packages, without the command line: a hand-made sibling pool,
 * a router and a trainer of your own around the rescue training loop, an evaluation under H0, and
 * the retained groups as training examples. Run it with
 *
 *   npx tsx --conditions=source examples/custom-trainer.ts [RUN_DIR]
 *
 * from the repository's root, after `npm ci`. `docs/library.md` walks through it.
 */
import { pathToFileURL } from 'node:url';
import {
  evaluate,
  type Harness,
  type Policy,
  type RescueRequest,
  type RescueRouter,
  readTrajectories,
  type ScoredGroup,
  splitTasks,
  type Trainer,
  type TrainerUpdate,
  type TrainingExample,
  type TrainSummary,
  train,
  trainingExamples,
} from '@harness-s/core';
import { createDbbenchEnvironment } from '@harness-s/env-dbbench';
import { createHarness, dbbenchH0, deriveVariant, environmentExtras, proposeChanges } from '@harness-s/harness-dsh';
import { SimulatedGrpoTrainer, SimulatedPolicy } from '@harness-s/policy';

/**
 * A trainer of your own: it sees every retained group with its advantages and hands the update to
 * the simulated policy's GRPO trainer, so the run still learns. A trainer for a served model would
 * turn each attempt's `messages` (rescued ones already re-rendered under H0 when the run says so)
 * and the trajectory's `tools` into a chat-template prompt, weight its completions' loss by
 * `advantage`, and return a policy that calls the updated weights.
 */
class RecordingTrainer implements Trainer {
  readonly id = 'recording';
  readonly seen: Array<{ step: number; groups: number; rescued: number; assistantTurns: number }> = [];
  private readonly inner = new SimulatedGrpoTrainer(new SimulatedPolicy());

  get policy(): Policy {
    return this.inner.policy;
  }

  async update(groups: readonly ScoredGroup[], step: number): Promise<TrainerUpdate> {
    const rescued = groups.filter((group) =>
      group.trajectories.some(({ trajectory }) => trajectory.harnessId !== 'h0'),
    );
    // The turns a loss would be taken over: the assistant messages of what is trained on.
    const assistantTurns = groups
      .flatMap((group) => group.trajectories)
      .reduce((sum, scored) => sum + scored.messages.filter((message) => message.role === 'assistant').length, 0);
    this.seen.push({ step, groups: groups.length, rescued: rescued.length, assistantTurns });
    return this.inner.update(groups, step);
  }

  // A checkpoint holds this, and a resumed run restores it: everything needed to continue exactly.
  state(): unknown {
    return { inner: this.inner.state(), seen: this.seen };
  }

  restore(state: unknown): void {
    const saved = state as { inner: unknown; seen: RecordingTrainer['seen'] };
    this.inner.restore(saved.inner);
    this.seen.splice(0, this.seen.length, ...saved.seen);
  }
}

/** A router of your own: the variants in the pool's order, as many as asked for. */
class PoolOrderRouter implements RescueRouter {
  readonly id = 'pool-order';
  readonly asked: string[] = [];

  async select({ task, pool, count }: RescueRequest): Promise<string[]> {
    this.asked.push(task.id);
    return pool.slice(0, count).map((spec) => spec.id);
  }

  state(): unknown {
    return null;
  }

  restore(): void {}
}

export interface ExampleResult {
  summary: TrainSummary;
  trainer: RecordingTrainer;
  router: PoolOrderRouter;
  pool: Harness[];
  /** Avg@3 under H0 on the test tasks, before and after training. */
  avgBefore: number;
  avgAfter: number;
  examples: TrainingExample[];
}

export async function runExample(dir: string): Promise<ExampleResult> {
  const environment = createDbbenchEnvironment(); // embedded PostgreSQL (PGlite); { db: 'postgres://...' } for a server
  try {
    const { tasks } = await environment.loadTasks({ split: 'dev' });
    // DBBench ships one split: cut it 60/20/20, as the command line does.
    const splits = splitTasks(tasks, { train: 0.6, validation: 0.2, test: 0.2 });

    // A sibling pool by hand: the library's first proposal for each of three repair directions.
    const h0Spec = dbbenchH0();
    const context = { skills: environment.skills, extras: environmentExtras('dbbench') };
    const directions = [
      { name: 'schema-grounding', skills: ['inspect-table'] },
      { name: 'write-verification', skills: ['verify-after-write'] },
      { name: 'answer-format', skills: ['answer-format'] },
    ];
    const pool = directions.flatMap(({ name, skills }) => {
      const [change] = proposeChanges(h0Spec, { name, skills, causes: [], tasks: [] }, context);
      return change ? [createHarness(deriveVariant(h0Spec, h0Spec, change))] : [];
    });
    const h0 = createHarness(h0Spec);

    const trainer = new RecordingTrainer();
    // The trainer's current policy under H0 on the test tasks: Avg@3 over the same draws each time.
    const underH0 = async (runId: string) =>
      (
        await evaluate({
          environment,
          taskSet: { tasks: splits.test, unloadable: [] },
          split: 'test',
          harness: h0,
          policy: trainer.policy,
          k: 3,
          seed: 7,
          concurrency: 4,
          runId,
        })
      ).summary.avgAtK;
    const avgBefore = await underH0('before');

    const router = new PoolOrderRouter();
    const summary = await train({
      config: { method: 'harness-s', steps: 4, batchSize: 6, k: 4, seed: 1, concurrency: 4, evalEvery: 4, evalK: 3 },
      environment,
      tasks: splits,
      h0,
      pool,
      router,
      trainer,
      dir,
    });

    const avgAfter = await underH0('after');

    // The retained attempts as training examples, the rescued ones re-rendered under H0 (what
    // `harness-s export RUN_DIR --context h0` writes).
    const examples = trainingExamples(await readTrajectories(dir), { tasks, h0, context: 'h0' });

    return {
      summary,
      trainer,
      router,
      pool,
      avgBefore,
      avgAfter,
      examples,
    };
  } finally {
    await environment.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2] ?? `runs/library-example-${Date.now()}`;
  const result = await runExample(dir);
  console.log(`pool: ${result.pool.map((harness) => harness.spec.id).join(', ')}`);
  console.log(`trainer updates: ${JSON.stringify(result.trainer.seen)}`);
  console.log(`rescues asked of the router: ${result.router.asked.length}`);
  console.log(
    `Avg@3 under H0 on the test tasks: ${(100 * result.avgBefore).toFixed(1)}% before, ${(100 * result.avgAfter).toFixed(1)}% after`,
  );
  console.log(`${result.examples.length} training examples; run folder ${dir}`);
}
