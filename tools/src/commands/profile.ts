import { resolve } from 'node:path';
import { ConfigError } from '@harness-s/core';
import { buildProfiles, chooseProfileTasks, type ProfileSet, profileFiles, writeProfiles } from '@harness-s/router';
import { checkCodeLanguage, resolveBase } from '../base-harness.js';
import { builtInDiagnosis } from '../diagnosis.js';
import { actionsOf, createEnvironment, type EnvironmentOptions, environmentOptions } from '../environments.js';
import { percent, renderTable } from '../format.js';
import { leftoversOf, listenForInterrupts } from '../interrupts.js';
import { profileSummarizer } from '../llm.js';
import { noteUnknownSimSkills, policyFromFlags, type SimulatedSettingsFlags } from '../policies.js';
import { loadPoolHarnesses } from '../pool.js';
import { checkOwnFolder } from '../resume.js';
import { loadTaskSplits } from '../task-splits.js';

export interface ProfileFlags extends EnvironmentOptions, SimulatedSettingsFlags {
  env: string;
  pool: string;
  /** The built-in base harness (default: the pool's base, else `h0`). */
  base?: string;
  out: string;
  policy: string;
  k: number;
  seed: number;
  concurrency: number;
  split?: string;
  /** Profile on this many validation tasks, chosen to cover their features (default all). */
  tasks?: number;
  model?: string;
  baseUrl?: string;
  /** `MODEL@URL` of the model that writes the summaries (template summaries without one). */
  summarizer?: string;
  quiet?: boolean;
}

/** `harness-s profile`: behaviour profiles of H0 and every pool variant on the validation split. */
export async function runProfile(flags: ProfileFlags): Promise<ProfileSet> {
  await checkOwnFolder(flags.out, profileFiles, 'profiles');
  const policy = await policyFromFlags(flags);
  const environment = createEnvironment(flags.env, { ...environmentOptions(flags), actionsFrom: actionsOf(policy) });
  if (!flags.quiet) noteUnknownSimSkills(policy, environment, (line) => process.stderr.write(`${line}\n`));
  const interrupts = listenForInterrupts({ leftovers: leftoversOf(flags.env, flags) });
  try {
    const pool = await loadPoolHarnesses(flags.pool, flags.env);
    const h0 = await resolveBase(flags.env, flags.base, pool);
    const splits = await loadTaskSplits(environment, flags.split);
    checkCodeLanguage(h0, splits.validation, '--base');
    const source = splits.source;
    if (splits.validation.length === 0) throw new ConfigError(`no validation tasks (${source})`, { code: 'no-tasks' });
    const validation =
      flags.tasks !== undefined ? chooseProfileTasks(splits.validation, flags.tasks, flags.seed) : splits.validation;
    const log = (line: string) => {
      if (!flags.quiet) process.stderr.write(`${line}\n`);
    };
    if (flags.tasks !== undefined && flags.tasks > splits.validation.length)
      log(
        `note: --tasks ${flags.tasks}, but there are ${splits.validation.length} validation tasks: profiling them all`,
      );
    log(
      `Profiling H0 and ${pool.length} variants with ${policy.id} on ${validation.length}${validation.length < splits.validation.length ? ` of ${splits.validation.length}` : ''} validation tasks (${source}), k=${flags.k}, paired seeds: ${(pool.length + 1) * validation.length * flags.k} episodes`,
    );
    const anchored = await buildProfiles({
      environment,
      tasks: validation,
      h0,
      pool,
      policy,
      k: flags.k,
      seed: flags.seed,
      concurrency: flags.concurrency,
      onHarness: (id, done, total) => log(`profiled ${id} (${done}/${total})`),
      signal: interrupts.signal,
      // How H0 failed each validation task, for a router with the similar-failure ranker.
      diagnose: builtInDiagnosis(flags.env, h0.spec),
    }).catch((error: unknown) => {
      throw interrupts.explain(error, 'no profiles were written; run the same command again');
    });
    const summarize = profileSummarizer(flags.summarizer, h0, log);
    if (summarize) log(`Writing summaries with ${flags.summarizer}`);
    const profiles = summarize ? await summarize(anchored) : anchored;
    const dir = resolve(flags.out);
    await writeProfiles(dir, profiles);
    process.stdout.write(
      `${renderTable(
        ['harness', 'direction', 'success', 'helps', 'hurts'],
        [profiles.h0, ...profiles.variants].map((profile) => [
          profile.harnessId,
          profile.direction ?? '-',
          percent(profile.successRate),
          String(profile.helps.length),
          String(profile.hurts.length),
        ]),
      )}\nProfiles: ${dir}/profiles.json (readable: ${dir}/summary.md)\n`,
    );
    return profiles;
  } finally {
    await interrupts.releaseAfter(() => environment.close());
  }
}
