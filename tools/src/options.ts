/** Parsers of flag values, and the options several commands share. */
import { type Command, InvalidArgumentError, Option } from 'commander';

/** Parses an integer flag value of at least `minimum` (and at most `maximum` when given). */
export const integer =
  (name: string, minimum: number, maximum?: number) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum || (maximum !== undefined && parsed > maximum)) {
      throw new InvalidArgumentError(
        `${name} must be an integer ${maximum === undefined ? `>= ${minimum}` : `from ${minimum} to ${maximum}`}, got '${value}'`,
      );
    }
    return parsed;
  };

/** Parses a finite number. */
export const number =
  (name: string) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed)) throw new InvalidArgumentError(`${name} must be a number, got '${value}'`);
    return parsed;
  };

/** Parses a number of at least 0. */
export const nonNegative =
  (name: string) =>
  (value: string): number => {
    const parsed = number(name)(value);
    if (parsed < 0) throw new InvalidArgumentError(`${name} must be at least 0, got '${value}'`);
    return parsed;
  };

/** Parses a number in [0, 1]. */
export const fraction =
  (name: string) =>
  (value: string): number => {
    const parsed = number(name)(value);
    if (parsed < 0 || parsed > 1) throw new InvalidArgumentError(`${name} must be in [0, 1], got '${value}'`);
    return parsed;
  };

/** Parses a comma-separated list of integers of at least `minimum`, e.g. `0,6,12`. */
export const integerList =
  (name: string, minimum: number) =>
  (value: string): number[] => {
    const items = value.split(',').map((item) => item.trim());
    const bad = items.find((item) => item === '' || !Number.isInteger(Number(item)) || Number(item) < minimum);
    if (bad !== undefined)
      throw new InvalidArgumentError(
        `${name} must be a comma-separated list of integers >= ${minimum} (e.g. ${minimum},6,12), got '${value}'${bad === '' ? ' (an empty item)' : ` ('${bad}')`}`,
      );
    return items.map(Number);
  };

/** Where and how an environment runs its episodes: the same flags on every command that opens them. */
export const scoringOption = () =>
  new Option('--scoring <rules>', "dbbench answer scoring (default: v0.2, AgentBench's)").choices([
    'v0.2',
    'normalized',
  ]);
export const dbOption = () =>
  new Option('--db <url>', 'dbbench database: pglite: (default), pglite:/folder, postgres://..., mysql://...');
export const sandboxOption = () =>
  new Option(
    '--sandbox <kind>',
    "swegym: where episodes run: docker (no network, limits), or local (this machine, unconfined); default local for policies that walk the environment's plans (sim, oracle, empty), docker for a model's commands",
  ).choices(['local', 'docker']);
/** Where a model's actions may run unconfined: commands whose policy can be a model. */
export const unconfinedOption = () =>
  new Option('--unconfined', "swegym: let a model's commands run in --sandbox local, on this machine, unconfined");

/** AppWorld environment servers (`appworld-server` or `harness-s serve appworld`) to run episodes on. */
export const appworldUrlOption = () =>
  new Option('--appworld-url <urls...>', 'appworld: environment servers to run on (one task each at a time)');
/** `--base`; with a pool (`train`, `profile`) its default is the base the pool's variants derive from. */
export const baseOption = (fromPool = true) =>
  new Option(
    '--base <name>',
    `the base harness H0, a built-in name (default: ${fromPool ? "the one the pool's variants derive from, else h0" : 'h0'}; appworld: h0-python or h0-python-tools for the real server)`,
  );
export const checkpointOption = () =>
  new Option(
    '--checkpoint <path>',
    'simulated policy: the one a training run left (its folder: the last checkpoint; or checkpoints/policy-step-N.json)',
  );
export const simConfigOption = () =>
  new Option(
    '--sim-config <file>',
    'simulated policy: a JSON file of settings over the defaults (see docs/simulated-policy.md)',
  );
export const simLocalityOption = () =>
  new Option(
    '--sim-locality <sd>',
    "simulated policy: spread of a variant's persistent per-task shifts (locality; default 0, off)",
  ).argParser(number('--sim-locality'));

export const infraRetriesOption = () =>
  new Option(
    '--infra-retries <n>',
    'times an attempt that ended in an infrastructure error (a model request failed after --max-retries, a sandbox or database lost) is run again from the start before it is lost (default 2)',
  ).argParser(integer('--infra-retries', 0));

/** The flags of `--policy openai` on commands that run a model: which one, where, how it samples, what it records. */
export function addModelOptions<T extends Command>(command: T): T {
  for (const option of modelOptions()) command.addOption(option);
  return command;
}

const modelOptions = (): Option[] => [
  new Option('--model <name>', 'model name (--policy openai)'),
  new Option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (--policy openai)'),
  new Option('--temperature <t>', 'sampling temperature (--policy openai)').argParser(nonNegative('--temperature')),
  new Option('--max-tokens <n>', 'completion token limit (--policy openai)').argParser(integer('--max-tokens', 1)),
  new Option('--token-ids', "--policy openai: record the completions' token ids (vLLM's return_token_ids)"),
  new Option('--logprobs', "--policy openai: record the completion tokens' log-probabilities"),
  new Option(
    '--seeded',
    "--policy openai: send each attempt's seed with its requests, so a server that honours it (vLLM, serve sim) samples reproducibly",
  ),
  new Option(
    '--request-timeout <s>',
    'seconds to wait for each answer of the model server before retrying it (--policy openai; default 120)',
  ).argParser(integer('--request-timeout', 1)),
  new Option(
    '--max-retries <n>',
    'retries of a request the server failed (timeout, 5xx, no connection) before the attempt records an infrastructure error (--policy openai; default 4)',
  ).argParser(integer('--max-retries', 0)),
];
