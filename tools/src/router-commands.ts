import { defaultCarryOver } from '@harness-s/router';
import { type Command, Option } from 'commander';
import { runProfile } from './commands/profile.js';
import { runRescueStudy } from './commands/rescue-study.js';
import { failureRankerOption } from './diagnosis.js';
import { environmentNames } from './environments.js';
import {
  appworldUrlOption,
  baseOption,
  checkpointOption,
  dbOption,
  fraction,
  integer,
  integerList,
  sandboxOption,
  scoringOption,
  simConfigOption,
  simLocalityOption,
  unconfinedOption,
} from './options.js';
import { policyNames } from './policies.js';

/** The router's commands: behaviour profiles, and the rescue study of a training run. */
export function addRouterCommands(program: Command): void {
  program
    .command('profile')
    .description(
      'Behaviour profiles of H0 and every pool variant on the validation split (paired runs, policy frozen).',
    )
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .requiredOption('--pool <dir>', 'the sibling pool')
    .addOption(baseOption())
    .requiredOption('--out <dir>', 'where profiles.json and summary.md go')
    .addOption(new Option('--policy <name>', 'who acts').choices([...policyNames]).default('sim'))
    .option('--k <n>', 'attempts per validation task and harness', integer('--k', 1), 3)
    .option('--seed <n>', 'seed (paired across harnesses)', integer('--seed', 0), 0)
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .option(
      '--split <name|file>',
      'cut this split, or a task file (AppWorld server: task ids), into train/validation/test instead of the shipped splits',
    )
    .option(
      '--tasks <n>',
      'profile on this many validation tasks, chosen to cover their features (default all)',
      integer('--tasks', 1),
    )
    .option('--model <name>', 'model name (--policy openai)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (--policy openai)')
    .option(
      '--summarizer <model@url>',
      'the model (OpenAI-compatible) that writes the summaries, e.g. qwen3-8b@http://127.0.0.1:8000/v1 (default: templates)',
    )
    .addOption(simConfigOption())
    .addOption(checkpointOption())
    .addOption(simLocalityOption())
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .addOption(unconfinedOption())
    .option('--quiet', 'no progress output')
    .action(async (flags) => {
      await runProfile(flags);
    });

  program
    .command('rescue-study')
    .description(
      "How each way of rescuing does on the all-failed H0 groups of a training run's policy at chosen steps: adaptive or fixed profiles, m x 1 or m/2 x 2, random variants, fresh H0 attempts, on the same attempts.",
    )
    .argument('<run-dir>', 'a training run folder (its policy snapshots, config and pool)')
    .option('--pool <dir>', "the run's sibling pool (default: the folder its config.json records)")
    .option('--profiles <dir>', "the first anchor's profiles (default: anchored on the run's step-0 policy)")
    .option(
      '--steps <list>',
      'steps to study, e.g. 0,6,12 (default: first, middle and last)',
      integerList('--steps', 0),
    )
    .option('--reps <n>', 'H0 groups drawn per training task and step', integer('--reps', 1), 3)
    .option('--variants <n>', "rescue width m (default: the run's)", integer('--variants', 2))
    .option(
      '--carry-over <x>',
      "share of the first anchor's evidence re-anchored profiles keep",
      fraction('--carry-over'),
      defaultCarryOver,
    )
    .option('--profile-k <n>', 'attempts per validation task when anchoring', integer('--profile-k', 1), 2)
    .addOption(failureRankerOption())
    .option('--seed <n>', "seed of the study's draws (default: the run's seed)", integer('--seed', 0))
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .option(
      '--split <name|file>',
      'the split or task file the run was cut from (default: what its config.json records)',
    )
    .option('--out <file>', 'where the JSON goes (default RUN_DIR/rescue-study.json)')
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .option('--quiet', 'no progress output')
    .action(async (run, flags) => {
      await runRescueStudy({ ...flags, run });
    });
}
