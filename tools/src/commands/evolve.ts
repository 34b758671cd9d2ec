import { resolve } from 'node:path';
import { ConfigError, countOf, type Environment, type Task } from '@harness-s/core';
import {
  type ChangeProposer,
  createHarness,
  createLlmAnalyser,
  createLlmProposer,
  type EvolveEvent,
  evolvePool,
  type FailureAnalyser,
  hasEnvironmentExtras,
  type PoolSummary,
  type SolvedRule,
} from '@harness-s/harness-dsh';
import { createOpenAIPolicy } from '@harness-s/policy';
import { checkCodeLanguage, resolveBase } from '../base-harness.js';
import { actionsOf, createEnvironment, environmentOptions } from '../environments.js';
import { percent, renderTable } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { noteUnknownSimSkills, policyFromFlags, type SimulatedSettingsFlags } from '../policies.js';
import { createProgress, type Progress } from '../progress.js';
import { loadSplitOrFile, loadTaskSplits } from '../task-splits.js';

export interface EvolveFlags extends SimulatedSettingsFlags {
  env: string;
  /** The built-in base harness to evolve from (default `h0`). */
  base?: string;
  rounds: number;
  out: string;
  policy: string;
  split?: string;
  subset: 'auto' | 'validation' | 'development' | 'train' | 'test' | 'all';
  k: number;
  seed: number;
  concurrency: number;
  parents: number;
  directions: number;
  childrenPerDirection: number;
  solved: SolvedRule;
  analyserUrl?: string;
  analyserModel?: string;
  model?: string;
  baseUrl?: string;
  scoring?: string;
  db?: string;
  sandbox?: string;
  quiet?: boolean;
  /** Print the pool's table on stdout when done (default); a caller with its own report turns it off. */
  printSummary?: boolean;
}

/**
 * The tasks to evolve on: a subset of the train/validation/test splits (`development` = train and
 * validation), or a whole split. `auto` takes the validation split of an environment that ships
 * train and test splits, and `development` otherwise: cutting DBBench's single 59-task split
 * 60/20/20 leaves 12 validation tasks, too few to tell variants apart, and the test tasks stay
 * out of evolution so that evaluations on them are fair.
 */
async function evolutionTasks<T extends Task>(environment: Environment<T>, flags: EvolveFlags) {
  const shipsSplits = environment.splits.includes('train') && environment.splits.includes('test');
  const subset = flags.subset === 'auto' ? (shipsSplits && !flags.split ? 'validation' : 'development') : flags.subset;
  if (subset === 'all') {
    const split = flags.split ?? environment.splits[0];
    if (!split) throw new ConfigError(`environment ${environment.id} ships no split`, { code: 'no-split' });
    return { tasks: (await loadSplitOrFile(environment, split)).tasks, label: split };
  }
  const splits = await loadTaskSplits(environment, flags.split);
  const tasks = subset === 'development' ? [...splits.train, ...splits.validation] : splits[subset];
  return { tasks, label: `${flags.split ?? 'shipped'}/${subset} (${splits.source})` };
}

/** `harness-s evolve`: directional harness evolution into a sibling pool folder. */
export async function runEvolve(flags: EvolveFlags): Promise<PoolSummary> {
  if (Boolean(flags.analyserUrl) !== Boolean(flags.analyserModel)) {
    throw new ConfigError('--analyser-url and --analyser-model go together', { code: 'bad-flag' });
  }
  const policy = await policyFromFlags(flags);
  const environment = createEnvironment(flags.env, { ...environmentOptions(flags), actionsFrom: actionsOf(policy) });
  if (!flags.quiet) noteUnknownSimSkills(policy, environment, (line) => process.stderr.write(`${line}\n`));
  const interrupts = listenForInterrupts({ leftovers: leftoversOf(flags.env, flags) });
  const log = (line: string) => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };
  try {
    const baseHarness = await resolveBase(flags.env, flags.base, []);
    const base = baseHarness.spec;
    const { tasks, label } = await evolutionTasks(environment, flags);
    if (tasks.length === 0) throw new ConfigError(`no tasks to evolve on (${label})`, { code: 'no-tasks' });
    checkCodeLanguage(baseHarness, tasks, '--base');
    let analyser: FailureAnalyser | undefined;
    let proposer: ChangeProposer | undefined;
    if (flags.analyserUrl && flags.analyserModel) {
      const chat = createOpenAIPolicy({ baseUrl: flags.analyserUrl, model: flags.analyserModel, temperature: 0 });
      const harness = createHarness(base);
      analyser = createLlmAnalyser({ policy: chat, harness, skills: environment.skills, log });
      proposer = createLlmProposer({ policy: chat, harness, skills: environment.skills, log });
    }
    const out = resolve(flags.out);
    log(
      `Evolving ${base.id} on ${flags.env} (${label}: ${tasks.length} tasks) with ${policy.id}: ${countOf(flags.rounds, 'round')}, ` +
        `k=${flags.k} paired attempts, solved = ${flags.solved}, analyser ${analyser?.id ?? 'built-in'}; pool in ${out}`,
    );

    let progress: Progress | undefined;
    let evaluated = 0;
    const onEvent = (event: EvolveEvent) => {
      switch (event.kind) {
        case 'round':
          log(
            `round ${event.round}${event.resumed ? ' (resumed)' : ''}: parents ${event.parents.join(', ')}; ${event.children} new children`,
          );
          // The built-in analyser reads failures through the environment's extras: without them it finds little.
          if (event.children === 0 && !analyser && !hasEnvironmentExtras(flags.env))
            log(
              `  ${flags.env} has no evolution extras (failure signals, rule wordings, tool transforms), so the built-in analyser found no repair direction to write; add extras to its plug-in (docs/adding-an-environment.md) or analyse failures with a model (--analyser-url, --analyser-model)`,
            );
          break;
        case 'evaluation-start':
          evaluated += 1;
          if (!flags.quiet && process.stderr.isTTY) progress = createProgress(event.id, event.attempts);
          if (event.resumed > 0) log(`${event.id}: resuming with ${event.resumed} recorded attempts`);
          break;
        case 'attempt':
          progress?.update(event.completed, `${event.successes} solved attempts`);
          break;
        case 'evaluation-done':
          progress?.stop();
          progress = undefined;
          log(
            `${event.id}: ${event.status === 'accepted' ? `coverage ${percent(event.coverage)}` : `rejected: ${event.reason}`}`,
          );
          break;
        case 'skip':
          log(`${event.id}: already evaluated (${event.status})`);
          break;
        case 'log':
          log(event.message);
          break;
      }
    };
    let summary: PoolSummary;
    try {
      summary = await evolvePool({
        environment,
        policy,
        tasks,
        split: label,
        base,
        out,
        rounds: flags.rounds,
        k: flags.k,
        seed: flags.seed,
        concurrency: flags.concurrency,
        parentsPerRound: flags.parents,
        directionsPerParent: flags.directions,
        childrenPerDirection: flags.childrenPerDirection,
        solvedRule: flags.solved,
        ...(analyser ? { analyser } : {}),
        ...(proposer ? { proposer } : {}),
        onEvent,
        signal: interrupts.signal,
      });
    } catch (error) {
      throw interrupts.explain(error, `finished work is kept in ${out}; run the same command again to resume`);
    } finally {
      progress?.stop();
    }
    log(`${evaluated} harnesses evaluated in this run`);
    if (flags.printSummary !== false) process.stdout.write(`${formatPoolSummary(summary)}\nPool folder: ${out}\n`);
    return summary;
  } finally {
    await interrupts.releaseAfter(() => environment.close());
  }
}

/** The pool table (every member against H0) and the coverage, locality and complementarity lines. */
export function formatPoolSummary(summary: PoolSummary): string {
  const rows = [...summary.variants]
    .sort((a, b) => a.round - b.round || b.coverage - a.coverage || a.id.localeCompare(b.id))
    .map((variant) => [
      variant.id,
      String(variant.round),
      variant.direction ?? '-',
      percent(variant.coverage),
      percent(variant.avgAtK),
      String(variant.helps.length),
      String(variant.hurts.length),
      String(variant.unique.length),
    ]);
  const table = renderTable(
    ['variant', 'round', 'direction', 'coverage', `Avg@${summary.k}`, 'helps', 'hurts', 'unique'],
    rows,
  );
  const total = summary.validationTasks;
  const count = (fraction: number) => `${Math.round(fraction * total)}/${total}`;
  return [
    '',
    `${summary.env}/${summary.split} | ${total} tasks | k=${summary.k} | solved = ${summary.solvedRule} | ${countOf(summary.rounds, 'round')} | ${summary.poolSize} variants (${summary.rejected} rejected)`,
    table,
    '',
    `H0 coverage          ${percent(summary.h0Coverage)} (${count(summary.h0Coverage)})`,
    `best single variant  ${percent(summary.bestSingleCoverage)} (${count(summary.bestSingleCoverage)}) ${summary.bestSingle ?? ''}`,
    `joint coverage       ${percent(summary.jointCoverage)} (${count(summary.jointCoverage)}); with H0 ${percent(summary.jointCoverageWithH0)}`,
    `locality             ${summary.locality.helpAndHurt} variants both fix tasks H0 fails and break tasks H0 solves (${summary.locality.help} help, ${summary.locality.hurt} hurt)`,
    `complementarity      ${summary.complementarity.distinctSolvedSets} distinct solved sets; ${summary.complementarity.mutuallyComplementaryPairs} pairs where each solves a task the other does not`,
  ].join('\n');
}
