import { defaultReanchorEvery } from '@harness-s/router';
import { type Command, Option } from 'commander';
import { runExport } from './commands/export.js';
import { runTrain } from './commands/train.js';
import { failureRankerOption } from './diagnosis.js';
import { environmentNames } from './environments.js';
import {
  addModelOptions,
  appworldUrlOption,
  baseOption,
  dbOption,
  fraction,
  infraRetriesOption,
  integer,
  nonNegative,
  number,
  sandboxOption,
  scoringOption,
  simConfigOption,
  simLocalityOption,
  unconfinedOption,
} from './options.js';
import { policyNames } from './policies.js';
import { givenFlags } from './resume.js';

/** `harness-s train` and `harness-s export`: training runs, and their batches for external trainers. */
export function addTrainingCommands(program: Command): void {
  addModelOptions(
    program
      .command('train')
      .description(
        'Complementary harness rescue training (GRPO) with the simulated policy, or with a model served elsewhere whose step batches go to an external trainer; evaluates under H0.',
      )
      .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
      .addOption(
        new Option('--method <name>', 'training method')
          .choices(['grpo', 'h0-resample', 'mixture', 'harness-s'])
          .default('harness-s'),
      )
      .addOption(
        new Option('--policy <name>', 'who acts: sim trains here; another writes batches/step-N.jsonl')
          .choices([...policyNames])
          .default('sim'),
      ),
  )
    .option(
      '--on-batch <command>',
      'not --policy sim: a shell command run after each step with HARNESS_S_BATCH (the batch file), HARNESS_S_STEP and HARNESS_S_RUN; the next step waits for it (an external trainer updating the served model)',
    )
    .option(
      '--on-batch-timeout <s>',
      'stop an --on-batch command still running after this many seconds (SIGTERM, then SIGKILL 10 s later), which stops the run as a failed one does (default: wait as long as it runs)',
      integer('--on-batch-timeout', 1),
    )
    .option('--steps <n>', 'training steps', integer('--steps', 1), 12)
    .option('--k <n>', 'attempts per task under H0 (group size)', integer('--k', 1), 8)
    .option('--batch-size <n>', 'tasks per step', integer('--batch-size', 1), 8)
    .option('--seed <n>', 'run seed', integer('--seed', 0), 0)
    .option(
      '--pool <dir>',
      'the sibling harness pool (needed by harness-s and mixture); its base harness is H0 unless --base names one',
    )
    .addOption(baseOption())
    .option(
      '--split <name|file>',
      'cut this split, or a task file (AppWorld server: task ids), into train/validation/test instead of the shipped splits',
    )
    .option('--rescue <shape>', 'rescue group shape, variants x attempts (default K x 1)')
    .addOption(
      new Option(
        '--rescue-context <how>',
        'train rescued attempts as rendered, or re-rendered under H0 (default: h0)',
      ).choices(['variant', 'h0']),
    )
    .option(
      '--eval-every <n>',
      'evaluate under H0 every n steps (default: before the first step and after the last only)',
      integer('--eval-every', 1),
    )
    .option('--skip-initial-eval', 'no evaluation under H0 before the first step (the baseline)')
    .option('--eval-k <n>', 'attempts per test task in evaluations', integer('--eval-k', 1), 3)
    .option(
      '--mixture-size <n>',
      "mixture: how many of the pool's best variants join H0 (default 3)",
      integer('--mixture-size', 1),
    )
    .addOption(
      new Option(
        '--advantage-std <kind>',
        'advantages divide by the population (n) or the sample (n - 1) standard deviation of the group (default: population)',
      ).choices(['population', 'sample']),
    )
    .option(
      '--advantage-epsilon <x>',
      'added to the standard deviation when computing advantages (default 1e-6)',
      nonNegative('--advantage-epsilon'),
    )
    .addOption(
      new Option(
        '--zero-variance <how>',
        'groups whose rewards are all equal: keep them at zero advantage, or drop them from the batch (default: keep)',
      ).choices(['keep', 'drop']),
    )
    .option('--learning-rate <x>', 'simulated trainer step size (default 1)', number('--learning-rate'))
    .addOption(simConfigOption())
    .addOption(simLocalityOption())
    .addOption(
      new Option(
        '--router <kind>',
        'rescue routing (harness-s): adaptive re-anchors its profiles; fixed keeps its first profiles; random draws distinct variants',
      )
        .choices(['adaptive', 'fixed', 'random'])
        .default('adaptive'),
    )
    .option(
      '--reanchor-every <n>',
      `adaptive router: re-anchor profiles every n steps (default ${defaultReanchorEvery}: before steps ${defaultReanchorEvery + 1}, ${2 * defaultReanchorEvery + 1}, ...)`,
      integer('--reanchor-every', 1),
    )
    .option(
      '--profile-k <n>',
      'adaptive router: attempts per validation task and harness when anchoring profiles (default 2)',
      integer('--profile-k', 1),
    )
    .option(
      '--profile-tasks <n>',
      'adaptive router: anchor profiles on this many validation tasks, chosen to cover their features (default all)',
      integer('--profile-tasks', 1),
    )
    .option(
      '--carry-over <x>',
      "adaptive router: share of earlier anchors' evidence a re-anchoring keeps, in [0, 1] (default 0.5)",
      fraction('--carry-over'),
    )
    .option(
      '--rescue-memory',
      'adaptive router: when a task fails again, try first what rescued it and last what only failed it',
    )
    .addOption(failureRankerOption())
    .option('--profiles <dir>', 'initial behaviour profiles (default: anchored on the initial policy)')
    .option(
      '--llm-ranker <model@url...>',
      'adaptive router: LLM rankers (OpenAI-compatible) joining the vote, e.g. qwen3-8b@http://127.0.0.1:8000/v1',
    )
    .option('--summarizer <model@url>', "adaptive router: the model that writes the profiles' summaries")
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .addOption(unconfinedOption())
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .addOption(infraRetriesOption())
    .option('--out <dir>', 'run folder (default runs/train-ENV-METHOD-sSEED-TIME)')
    .option('--resume <dir>', 'continue a killed or interrupted run from its last checkpoint')
    .option('--redis <url>', 'run attempts on `harness-s worker` processes through a job queue in this Redis')
    .option('--quiet', 'no progress output')
    .action(async (flags, command: Command) => {
      await runTrain(flags, givenFlags(command));
    });

  program
    .command('export')
    .description("Write a training run's retained attempts as JSONL batches for external trainers.")
    .argument('<run-dir>', 'a training run folder')
    .option('--out <file>', 'output file (default RUN_DIR/batches-<context>.jsonl)')
    .addOption(
      new Option(
        '--context <how>',
        "messages as rendered, or re-rendered under H0 (default: as the run trained on them: its --rescue-context; a mixture's as rendered)",
      ).choices(['variant', 'h0']),
    )
    .option(
      '--all',
      'also attempts not trained on, marked "trained": false with advantage 0: failed groups that rescue replaced, and groups dropped for having no variance (--zero-variance drop)',
    )
    .addOption(
      new Option('--appworld-url <urls...>', "appworld: servers to read the run's tasks from (default: the run's own)"),
    )
    .action(async (run: string, flags) => {
      await runExport({ run, ...flags });
    });
}
