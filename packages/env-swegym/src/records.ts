import { basename, dirname, extname, join } from 'node:path';
import { formatZodError, readJsonl, type TaskSet, type UnloadableTask } from '@harness-s/core';
import { type RepositoryOverrides, resolveRuntime } from './conventions.js';
import { ensureEmbeddedRepository } from './embedded-repos.js';
import { type SweInstance, SweInstanceRecord, type SweTask } from './instance.js';

export interface LoadOptions {
  /** The split name the tasks get (default: the file's name). */
  split?: string;
  /** Keep only embedded instances of this split (`all` keeps every one). */
  embeddedSplit?: 'train' | 'dev' | 'test' | 'all';
  repositoryOverrides?: RepositoryOverrides;
  /** Local git checkouts by repository, for running real instances in the local sandbox. */
  localRepos?: Record<string, string>;
  /** Where embedded repositories are built (default: a directory under the system's temp dir). */
  repositoryCache?: string;
}

/** The grading fields of a record, with the test lists as lists. */
export function toInstance(record: SweInstanceRecord): SweInstance {
  return {
    instanceId: record.instance_id,
    repo: record.repo,
    baseCommit: record.base_commit,
    goldPatch: record.patch ?? null,
    testPatch: record.test_patch,
    problemStatement: record.problem_statement,
    hintsText: record.hints_text ?? '',
    createdAt: record.created_at ?? null,
    version: record.version === null || record.version === undefined ? null : String(record.version),
    failToPass: record.FAIL_TO_PASS,
    passToPass: record.PASS_TO_PASS ?? [],
    failToFail: record.FAIL_TO_FAIL ?? [],
    passToFail: record.PASS_TO_FAIL ?? [],
  };
}

/**
 * Loads SWE-Gym / SWE-bench instances from a JSONL file. Records that do not validate are
 * reported as unloadable with the reason; the rest load. Embedded instances get their
 * repositories built (once, cached) from the stored files next to the file.
 */
export async function loadSweInstances(path: string, options: LoadOptions = {}): Promise<TaskSet<SweTask>> {
  const split = options.split ?? basename(path, extname(path));
  const tasks: SweTask[] = [];
  const unloadable: UnloadableTask[] = [];
  const seen = new Set<string>();
  for (const { line, value } of await readJsonl(path)) {
    const fallbackId =
      typeof value === 'object' &&
      value !== null &&
      typeof (value as Record<string, unknown>)['instance_id'] === 'string'
        ? String((value as Record<string, unknown>)['instance_id'])
        : `${split}-line-${line}`;
    const parsed = SweInstanceRecord.safeParse(value);
    if (!parsed.success) {
      unloadable.push({ id: fallbackId, reason: `${path}:${line}: ${formatZodError(parsed.error)}` });
      continue;
    }
    const record = parsed.data;
    if (seen.has(record.instance_id)) {
      unloadable.push({ id: record.instance_id, reason: `${path}:${line}: duplicate instance_id` });
      continue;
    }
    seen.add(record.instance_id);
    const embedded = record.harness_s ?? null;
    if (
      embedded &&
      options.embeddedSplit &&
      options.embeddedSplit !== 'all' &&
      embedded.split !== options.embeddedSplit
    ) {
      continue;
    }
    let hostRepo: string | null = options.localRepos?.[record.repo] ?? null;
    if (embedded) {
      try {
        hostRepo = await ensureEmbeddedRepository(
          join(dirname(path), embedded.repo_dir),
          record.base_commit,
          options.repositoryCache,
        );
      } catch (error) {
        unloadable.push({ id: record.instance_id, reason: (error as Error).message });
        continue;
      }
    }
    const runtime = resolveRuntime(record, options.repositoryOverrides, hostRepo);
    tasks.push({
      id: record.instance_id,
      env: 'swegym',
      split,
      instruction: record.problem_statement.trim(),
      category: embedded ? embedded.language : record.repo,
      tags: [record.repo, ...(embedded ? ['embedded', embedded.language] : [])],
      ...(embedded ? { difficulty: embedded.oracle.fix.length > 1 ? 2 : 1 } : {}),
      instance: toInstance(record),
      runtime: { ...runtime, setup: runtime.setup === '' ? null : runtime.setup },
      embedded,
    });
  }
  return { tasks, unloadable };
}
