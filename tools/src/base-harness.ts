import { ConfigError, type Harness, type HarnessSpec, type Task } from '@harness-s/core';
import {
  builtInHarnesses,
  builtInHarnessSpec,
  environmentExtras,
  noHarnessesHint,
  resolveHarness,
} from '@harness-s/harness-dsh';

/**
 * The base harness H0 of a command: `--base` when given, else the one the pool's variants derive
 * from, else the environment's `h0`. A pool of another base, or of several, is refused.
 */
export async function resolveBase(env: string, base: string | undefined, pool: readonly Harness[]): Promise<Harness> {
  const poolBases = [...new Set(pool.flatMap((harness) => (harness.spec.patch ? [harness.spec.patch.base] : [])))];
  if (poolBases.length > 1)
    throw new ConfigError(`--pool: its variants derive from different base harnesses (${poolBases.join(', ')})`, {
      code: 'bad-pool',
    });
  const [poolBase] = poolBases;
  if (base !== undefined && poolBase !== undefined && base !== poolBase)
    throw new ConfigError(
      `--base ${base}, but the pool's variants derive from ${poolBase}: give --base ${poolBase}, or a pool evolved with --base ${base}`,
      { code: 'bad-base' },
    );
  const name = base ?? poolBase ?? 'h0';
  if (!builtInHarnesses(env).includes(name))
    throw new ConfigError(
      `--base: no built-in harness '${name}' for --env ${env}; ${builtInHarnesses(env).length ? `use one of ${builtInHarnesses(env).join(', ')}` : noHarnessesHint}`,
      { code: 'unknown-harness' },
    );
  return resolveHarness(env, name);
}

/** The code language a harness writes (undefined for environments whose actions are not code). */
export const codeLanguageOf = (spec: HarnessSpec): string | undefined =>
  environmentExtras(spec.env).codeLanguage?.(spec);

/** An environment's built-in harness specs that write `language` (all of them where actions are not code). */
export function builtInSpecsIn(env: string, language: string | undefined): HarnessSpec[] {
  return builtInHarnesses(env).flatMap((name) => {
    const spec = builtInHarnessSpec(env, name);
    return spec && codeLanguageOf(spec) === language ? [spec] : [];
  });
}

/**
 * Refuses a harness whose code is in another language than the tasks' (AppWorld: the embedded
 * world runs JavaScript, the real server Python), naming the harness to use instead.
 */
export function checkCodeLanguage(harness: Harness, tasks: readonly Task[], flag: string): void {
  const language = codeLanguageOf(harness.spec);
  if (language === undefined) return;
  const languageOf = (task: Task) => {
    const taskLanguage = (task as Task & { codeLanguage?: unknown }).codeLanguage;
    return typeof taskLanguage === 'string' ? taskLanguage : undefined;
  };
  const other = tasks.find((task) => languageOf(task) !== undefined && languageOf(task) !== language);
  const wanted = other && languageOf(other);
  if (!other || !wanted) return;
  // The harnesses in the tasks' language, those of the refused one's family first.
  const fitting = builtInSpecsIn(harness.spec.env, wanted)
    .sort((a, b) => Number(a.family !== harness.spec.family) - Number(b.family !== harness.spec.family))
    .map((spec) => spec.id);
  throw new ConfigError(
    `task ${other.id} is written in ${wanted} code, but harness ${harness.spec.id} writes ${language}` +
      (fitting.length
        ? `: use ${flag} ${fitting.slice(0, -1).join(', ')}${fitting.length > 1 ? ' or ' : ''}${fitting.at(-1)}`
        : ''),
    { code: 'code-language-mismatch' },
  );
}
