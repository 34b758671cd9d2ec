import { Command, InvalidArgumentError, Option } from 'commander';
import { runEval } from './commands/eval.js';
import { runExport } from './commands/export.js';
import { runReplay } from './commands/replay.js';
import { runTrain } from './commands/train.js';
import { environmentNames } from './environments.js';
import { policyNames } from './policies.js';

const integer =
  (name: string, minimum: number) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum) {
      throw new InvalidArgumentError(`${name} must be an integer >= ${minimum}, got '${value}'`);
    }
    return parsed;
  };

const number =
  (name: string) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} must be a number, got '${value}'`);
    return parsed;
  };

/** The `harness-s` command line, built fresh so tests can parse arguments in process. */
export function createProgram(): Command {
  const program = new Command()
    .name('harness-s')
    .description('Train and evaluate LLM agents with sibling harnesses.')
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('eval')
    .description('Run k attempts of every task under one harness; print Pass@k and Avg@k; write a run folder.')
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .option('--split <name>', 'a split shipped with the environment', 'dev')
    .option('--data <file>', 'a task file to use instead of a shipped split')
    .addOption(new Option('--policy <name>', 'who acts').choices([...policyNames]).default('sim'))
    .option('--harness <name|file>', 'a built-in harness (h0, h0-text) or a harness spec .json', 'h0')
    .option('--k <n>', 'attempts per task', integer('--k', 1), 3)
    .option('--seed <n>', 'run seed', integer('--seed', 0), 0)
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .option('--out <dir>', 'run folder (default runs/<time>-<env>-<policy>)')
    .option('--resume <dir>', 'continue an interrupted run in its folder')
    .option('--model <name>', 'model name (--policy openai)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (--policy openai)')
    .option('--temperature <t>', 'sampling temperature (--policy openai)', number('--temperature'))
    .option('--max-tokens <n>', 'completion token limit (--policy openai)', integer('--max-tokens', 1))
    .addOption(new Option('--scoring <rules>', 'dbbench answer scoring').choices(['v0.2', 'normalized']))
    .option('--tasks <ids...>', 'only these task ids')
    .option('--limit <n>', 'only the first n tasks', integer('--limit', 1))
    .option('--quiet', 'no progress output')
    .action(async (flags) => {
      await runEval(flags);
    });

  program
    .command('replay')
    .description(
      'Run a recorded or hand-written list of actions against a fresh episode; print each observation and the evaluation.',
    )
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .requiredOption('--task <id>', 'task id, e.g. dev-20')
    .requiredOption(
      '--actions <file>',
      'a JSON array of actions, JSONL of actions, or a run folder / trajectories.jsonl',
    )
    .option('--split <name>', 'a split shipped with the environment', 'dev')
    .option('--data <file>', 'a task file to use instead of a shipped split')
    .option('--attempt <n>', 'which attempt of the task, when reading a run', integer('--attempt', 0), 0)
    .option('--harness <id>', 'which harness id, when reading a run with several')
    .addOption(new Option('--scoring <rules>', 'dbbench answer scoring').choices(['v0.2', 'normalized']))
    .action(async (flags) => {
      await runReplay(flags);
    });

  program
    .command('train')
    .description('Complementary harness rescue training (GRPO) with the simulated policy; evaluates under H0.')
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .addOption(
      new Option('--method <name>', 'training method')
        .choices(['grpo', 'h0-resample', 'mixture', 'harness-s'])
        .default('harness-s'),
    )
    .option('--steps <n>', 'training steps', integer('--steps', 1), 12)
    .option('--k <n>', 'attempts per task under H0 (group size)', integer('--k', 1), 8)
    .option('--batch-size <n>', 'tasks per step', integer('--batch-size', 1), 8)
    .option('--seed <n>', 'run seed', integer('--seed', 0), 0)
    .option('--pool <dir>', 'the sibling harness pool (needed by harness-s and mixture)')
    .option('--split <name>', 'cut this split into train/validation/test instead of the shipped splits')
    .option('--rescue <shape>', 'rescue group shape, variants x attempts (default K x 1)')
    .addOption(
      new Option('--rescue-context <how>', 'train rescued attempts as rendered, or re-rendered under H0').choices([
        'variant',
        'h0',
      ]),
    )
    .option('--eval-every <n>', 'evaluate under H0 every n steps', integer('--eval-every', 1))
    .option('--eval-k <n>', 'attempts per test task in evaluations', integer('--eval-k', 1), 3)
    .option('--learning-rate <x>', 'simulated trainer step size', number('--learning-rate'))
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .option('--out <dir>', 'run folder')
    .option('--resume <dir>', 'continue a killed or interrupted run from its last checkpoint')
    .option('--quiet', 'no progress output')
    .action(async (flags) => {
      await runTrain(flags);
    });

  program
    .command('export')
    .description("Write a training run's retained attempts as JSONL batches for external trainers.")
    .argument('<run-dir>', 'a training run folder')
    .option('--out <file>', 'output file (default RUN_DIR/batches-<context>.jsonl)')
    .addOption(
      new Option('--context <how>', 'messages as rendered, or re-rendered under H0')
        .choices(['variant', 'h0'])
        .default('variant'),
    )
    .option('--all', 'also attempts that were not retained (replaced by rescue)')
    .action(async (run: string, flags) => {
      await runExport({ run, ...flags });
    });
  return program;
}
