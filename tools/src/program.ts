import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { evolveDefaults } from '@harness-s/harness-dsh';
import { Command, Option } from 'commander';
import { runCleanup } from './commands/cleanup.js';
import { runCompare } from './commands/compare.js';
import { doctorDefaults, runDoctor } from './commands/doctor.js';
import { runEval } from './commands/eval.js';
import { runEvolve } from './commands/evolve.js';
import { runReplay } from './commands/replay.js';
import { runReport } from './commands/report.js';
import { defaultStudyReps, runReproduce } from './commands/reproduce.js';
import { runServe } from './commands/serve.js';
import { runWorker } from './commands/worker.js';
import { failureRankerOption } from './diagnosis.js';
import { environmentNames } from './environments.js';
import {
  addModelOptions,
  appworldUrlOption,
  baseOption,
  checkpointOption,
  dbOption,
  infraRetriesOption,
  integer,
  integerList,
  sandboxOption,
  scoringOption,
  simConfigOption,
  simLocalityOption,
  unconfinedOption,
} from './options.js';
import { policyNames } from './policies.js';
import { defaultReproduceEnvs } from './reproduce/settings.js';
import { givenFlags } from './resume.js';
import { addRouterCommands } from './router-commands.js';
import { addTrainingCommands } from './training-commands.js';

/** The version in the command line package's package.json (one folder above `src` and `dist`). */
function cliVersion(): string {
  const manifest = fileURLToPath(new URL('../package.json', import.meta.url));
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The `harness-s` command line, built fresh so tests can parse arguments in process. */
export function createProgram(): Command {
  const program = new Command()
    .name('harness-s')
    .description('Train and evaluate LLM agents with sibling harnesses.')
    .version(cliVersion(), '-V, --version', 'print the version of harness-s')
    .showHelpAfterError('(run with --help for usage)');

  addModelOptions(
    program
      .command('eval')
      .description('Run k attempts of every task under one harness; print Pass@k and Avg@k; write a run folder.')
      .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
      .option(
        '--split <name>',
        'a split shipped with the environment, or train/validation/test as train cuts them (default: dev, or its first split)',
      )
      .option('--data <file>', 'a task file to use instead of a shipped split')
      .addOption(new Option('--policy <name>', 'who acts').choices([...policyNames]).default('sim'))
      .option(
        '--harness <name|file>',
        "a built-in harness (h0; dbbench/swegym h0-text, appworld h0-tools; AppWorld's own server: h0-python, h0-python-tools; other families: dbbench minimal and codeact, appworld minimal, swegym codeact) or a harness spec .json",
        'h0',
      )
      .option('--k <n>', 'the k of Pass@k and Avg@k, and attempts per task', integer('--k', 1), 3)
      .option(
        '--attempts <n>',
        'attempts per task, n >= k (default k): Pass@k estimated from all n, with less variance',
        integer('--attempts', 1),
      )
      .option('--seed <n>', 'run seed', integer('--seed', 0), 0)
      .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
      .addOption(infraRetriesOption())
      .option('--out <dir>', 'run folder (default runs/<time>-<env>-<policy>)')
      .option('--resume <dir>', 'continue an interrupted run in its folder'),
  )
    .addOption(simConfigOption())
    .addOption(checkpointOption())
    .addOption(simLocalityOption())
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .addOption(unconfinedOption())
    .option('--tasks <ids...>', 'only these task ids')
    .option('--limit <n>', 'only the first n tasks', integer('--limit', 1))
    .addOption(
      new Option('--routing <how>', "h0: every task under --harness; rank1: the router's top choice per task").choices([
        'h0',
        'rank1',
      ]),
    )
    .option('--pool <dir>', 'the sibling pool (with --routing rank1)')
    .option('--profiles <dir>', 'behaviour profiles from harness-s profile (with --routing rank1)')
    .option(
      '--llm-ranker <model@url...>',
      'with --routing rank1: LLM rankers (OpenAI-compatible) joining the vote, e.g. qwen3-8b@http://127.0.0.1:8000/v1',
    )
    .option('--quiet', 'no progress output')
    .action(async (flags, command: Command) => {
      await runEval(flags, givenFlags(command));
    });

  program
    .command('serve')
    .description(
      "Serve an environment over its benchmark's own protocol (`serve appworld`: AppWorld's server routes), or the simulated policy as an OpenAI-compatible model that learns from the batches a run hands over (`serve sim`).",
    )
    .argument('<what>', 'the service: appworld, or sim (the simulated policy as a chat completions endpoint)')
    .option(
      '--port <n>',
      'port to listen on (0 picks a free one; default appworld 8000, sim 8100)',
      integer('--port', 0, 65535),
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--env <name>', 'sim: the environment whose tasks it is prompted with (default dbbench)')
    .option('--pool <dir>', "sim: the pool the run uses, so it recognises the variants' prompts")
    .addOption(baseOption())
    .addOption(simConfigOption())
    .addOption(simLocalityOption())
    .addOption(checkpointOption())
    .option('--seed <n>', 'sim: seed of its draws', integer('--seed', 0), 1)
    .option(
      '--out <dir>',
      'sim: folder of its parameters, written at every update; one that holds them is continued (default runs/served-sim-<env>-<time>)',
    )
    .option(
      '--max-body-mb <n>',
      'appworld: the largest request body it reads, in MiB (a larger one gets 413; default 8)',
      integer('--max-body-mb', 1, 1024),
    )
    .action(async (what: string, flags) => {
      await runServe(what, flags);
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
    .option('--split <name>', 'a split shipped with the environment (default: dev, or its first split)')
    .option('--data <file>', 'a task file to use instead of a shipped split')
    .option('--attempt <n>', 'which attempt of the task, when reading a run', integer('--attempt', 0), 0)
    .option('--harness <id>', 'which harness id, when reading a run with several')
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .addOption(unconfinedOption())
    .action(async (flags) => {
      await runReplay(flags);
    });

  addTrainingCommands(program);

  addRouterCommands(program);

  program
    .command('reproduce')
    .description(
      'The whole method on the embedded environments with the simulated policy: pool, profiles, every method over seeds, ablations, tables, report.',
    )
    .option('--quick', 'a smaller run (about a minute on two cores)')
    .option(
      '--envs <names...>',
      `environments among ${environmentNames().join(', ')} (default: ${defaultReproduceEnvs.join(' ')})`,
    )
    .option('--seeds <n...>', 'seeds (default 1 2 3)', (value: string, earlier: number[] | undefined) => [
      ...(earlier ?? []),
      integer('--seeds', 0)(value),
    ])
    .option('--concurrency <n>', 'attempts in flight at once, per training run', integer('--concurrency', 1), 4)
    .option(
      '--jobs <n>',
      'training runs at once, each in a worker thread (default: one per core, at most 4)',
      integer('--jobs', 1),
    )
    .option(
      '--pools <dir>',
      "load each environment's pool from DIR/<env>/ (e.g. an earlier run's pools folder) instead of evolving it",
    )
    .addOption(simConfigOption())
    .addOption(simLocalityOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .option('--out <dir>', 'run folder (rerun with the same --out to continue an interrupted run)')
    .option(
      '--rescue-study [reps]',
      `after training, study each harness-s run's rescue at its first, middle and last step, with reps H0 groups per training task and step (default ${defaultStudyReps})`,
      integer('--rescue-study', 1),
    )
    .option(
      '--study-steps <list>',
      'steps the rescue studies look at, e.g. 0,1,2,3,6 (default: first, middle and last; implies --rescue-study)',
      integerList('--study-steps', 0),
    )
    .option(
      '--rescue-memory',
      "harness-s runs with adaptive profiles: the router remembers what each rescue gave (as train's --rescue-memory)",
    )
    .addOption(failureRankerOption())
    .option('--no-report', 'skip the HTML report')
    .option('--quiet', 'no progress output')
    .action(async (flags) => {
      await runReproduce(flags);
    });

  program
    .command('report')
    .description(
      'Write a self-contained HTML report of a reproduction, training or evaluation run folder: tables, training curves, router and variant charts, rescued trajectories side by side; for an evaluation, its rates and the attempts at each task.',
    )
    .argument('<run-dir>', 'a folder written by reproduce, train or eval')
    .option('--out <file>', 'output file (default RUN_DIR/report.html)')
    .action(async (run: string, flags) => {
      await runReport({ run, ...flags });
    });

  program
    .command('compare')
    .description(
      'Training runs side by side: every seed of a configuration as one row (mean ± std), the settings that tell the rows apart as columns.',
    )
    .argument(
      '<dirs...>',
      'training run folders, or folders holding them (a reproduction, a folder of train --out runs)',
    )
    .option('--by <settings...>', 'group by these settings (default: every setting that differs between the runs)')
    .option(
      '--against <setting=value>',
      "each row's differences from these runs (e.g. method=grpo), paired by seed, with 95% intervals",
    )
    .option('--json', 'the groups and their runs as JSON')
    .action(async (dirs: string[], flags) => {
      await runCompare(dirs, flags);
    });

  program
    .command('doctor')
    .description(
      'Check which real parts work here: the embedded defaults (an oracle episode each), PostgreSQL, MySQL/MariaDB, Redis, Docker and its SWE-Gym image, an OpenAI-compatible endpoint. Exits 1 when an embedded default, or a part named by a flag, does not work.',
    )
    .option('--postgres <url>', `PostgreSQL to try (default ${doctorDefaults.postgres}; named, it must work)`)
    .option('--mysql <url>', `MySQL or MariaDB to try (default ${doctorDefaults.mysql}; named, it must work)`)
    .option('--redis <url>', `Redis to try (default ${doctorDefaults.redis}; named, it must work)`)
    .option('--base-url <url>', 'OpenAI-compatible endpoint to try (default OPENAI_BASE_URL; named, it must work)')
    .option('--model <name>', 'a model the endpoint must serve')
    .option('--appworld-url <urls...>', 'AppWorld environment servers to try (an oracle episode)')
    .option(
      '--appworld-task <id>',
      "the task AppWorld's own server initializes for the check (default 82e2fac_1, of AppWorld's dataset)",
    )
    .option('--no-docker', 'skip the Docker checks')
    .option('--timeout <ms>', 'longest one check may take', integer('--timeout', 1), 120_000)
    .option('--json', 'print the checks as JSON')
    .option('--quiet', 'no progress lines')
    .action(async (flags) => {
      const { ok } = await runDoctor(flags);
      if (!ok) process.exitCode = 1;
    });

  program
    .command('cleanup')
    .description(
      'Remove what killed runs left behind (dbbench: databases, schemas, roles and users of dead runs; swegym: containers and sandbox directories of dead runs).',
    )
    .option('--env <name>', 'only this environment (default: every environment with a cleanup)')
    .option('--db <url>', 'dbbench: the server to clean, postgres://... or mysql://...')
    .option('--run <label>', 'swegym: only the containers of this run label')
    .option('--all', 'swegym: also containers of runs that are still alive')
    .action(async (flags) => {
      await runCleanup(flags);
    });

  program
    .command('worker')
    .description("Run rollout jobs of training runs started with `train --redis`, with this machine's environment.")
    .requiredOption('--redis <url>', 'the Redis of the job queue, redis://host:port[/db]')
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .option('--concurrency <n>', 'attempts in flight at once, per training run', integer('--concurrency', 1), 4)
    .option('--queue <name>', 'serve only this queue (default: every training run of the environment)')
    .option('--name <name>', 'worker name in logs and on jobs (default host-pid)')
    .option(
      '--lock-duration <ms>',
      'job lock, renewed at half of it while an attempt runs',
      integer('--lock-duration', 100),
      30_000,
    )
    .option(
      '--stalled-interval <ms>',
      'how often to look for jobs of dead workers',
      integer('--stalled-interval', 100),
      30_000,
    )
    .option(
      '--max-stalled <n>',
      'a job whose worker died more often than this is parked',
      integer('--max-stalled', 0),
      1,
    )
    .option(
      '--grace <ms>',
      'on SIGTERM, how long running attempts may finish before being handed back',
      integer('--grace', 0),
      60_000,
    )
    .option('--heartbeat <ms>', 'heartbeat log period (0: none)', integer('--heartbeat', 0), 10_000)
    .addOption(scoringOption())
    .addOption(dbOption())
    .addOption(sandboxOption())
    .addOption(appworldUrlOption())
    .addOption(unconfinedOption())
    .option('--quiet', 'no log output')
    .action(async (flags) => {
      await runWorker(flags);
    });
  program
    .command('evolve')
    .description(
      'Directional harness evolution: grow a sibling pool from H0 (failure analysis, repair directions, children, parents by joint coverage).',
    )
    .addOption(new Option('--env <name>', 'environment').choices(environmentNames()).default('dbbench'))
    .addOption(baseOption(false))
    .option('--rounds <n>', 'evolution rounds', integer('--rounds', 1), evolveDefaults.rounds)
    .requiredOption('--out <dir>', 'the pool folder (rerun the same command to resume it)')
    .addOption(new Option('--policy <name>', 'who acts').choices([...policyNames]).default('sim'))
    .option('--split <name|file>', 'the split or task file to use (cut into train/validation/test unless --subset all)')
    .addOption(
      new Option(
        '--subset <name>',
        'which tasks: auto = the shipped validation split, else development (train and validation, never test)',
      )
        .choices(['auto', 'validation', 'development', 'train', 'test', 'all'])
        .default('auto'),
    )
    .option('--k <n>', 'paired attempts per task and harness', integer('--k', 1), evolveDefaults.k)
    .option('--seed <n>', 'seed (the same for H0 and every variant)', integer('--seed', 0), 0)
    .option('--concurrency <n>', 'attempts in flight at once', integer('--concurrency', 1), 4)
    .option('--parents <n>', 'parents per round', integer('--parents', 1), evolveDefaults.parentsPerRound)
    .option(
      '--directions <n>',
      'repair directions per parent',
      integer('--directions', 1),
      evolveDefaults.directionsPerParent,
    )
    .option(
      '--children-per-direction <n>',
      'children per direction and source',
      integer('--children-per-direction', 1),
      evolveDefaults.childrenPerDirection,
    )
    .addOption(
      new Option('--solved <rule>', 'a task is solved in half of its k attempts, or in any')
        .choices(['majority', 'any'])
        .default(evolveDefaults.solvedRule),
    )
    .option('--analyser-url <url>', 'OpenAI-compatible endpoint of the LLM failure analyser and proposer')
    .option('--analyser-model <name>', 'model of the LLM failure analyser and proposer')
    .option('--model <name>', 'model name (--policy openai)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (--policy openai)')
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
      await runEvolve(flags);
    });
  return program;
}
