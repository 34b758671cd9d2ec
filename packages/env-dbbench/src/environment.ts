import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  type Environment,
  type OpenOptions,
  type OraclePlan,
  type TaskSet,
  type TaskSource,
} from '@harness-s/core';
import type { DbbenchBackend } from './backend.js';
import { createBackendFromUrl } from './backend-factory.js';
import { DbbenchEpisode, type DbbenchScoring } from './episode.js';
import { dbbenchOraclePlan, dbbenchSkills } from './oracle-plan.js';
import { type DbbenchTask, loadDbbenchFile } from './records.js';

/** The splits shipped with the package, by name. */
const shippedSplits: Record<string, string> = {
  dev: fileURLToPath(new URL('../data/dev.jsonl', import.meta.url)),
};

export interface DbbenchEnvironmentOptions {
  /** The SQL engine, made by the caller; wins over `db`. */
  backend?: DbbenchBackend;
  /**
   * The SQL engine as a URL: `pglite:` (the default: embedded, in memory), `pglite:/path/to/folder`,
   * `postgres://user@host:5432/db` or `mysql://user@host:3306/db` (MySQL 8 or MariaDB).
   */
  db?: string;
  /** How question answers are scored (default `v0.2`, the paper's AgentBench version). */
  scoring?: DbbenchScoring;
}

/**
 * A note for the agent naming the engine, so a real model writes the right dialect. On MySQL the
 * prompt stays AgentBench's own.
 */
function engineNote(backend: DbbenchBackend): string {
  return backend.dialect === 'postgres'
    ? 'The database is PostgreSQL: quote table and column names with double quotes.'
    : '';
}

/** AgentBench's DBBench: answer questions about a table, or modify it, with SQL. */
export function createDbbenchEnvironment(options: DbbenchEnvironmentOptions = {}): Environment<DbbenchTask> {
  const backend = options.backend ?? createBackendFromUrl(options.db ?? 'pglite:');
  const scoring = options.scoring ?? 'v0.2';
  return {
    id: 'dbbench',
    splits: Object.keys(shippedSplits),
    skills: dbbenchSkills,

    async loadTasks(source: TaskSource): Promise<TaskSet<DbbenchTask>> {
      // Connect first: a server that is down stops the run here, with one message, before any episode.
      await backend.start();
      if (source.file) return loadDbbenchFile(source.file, undefined, engineNote(backend));
      const split = source.split ?? 'dev';
      const path = shippedSplits[split];
      if (!path) {
        throw new ConfigError(
          `dbbench has no split '${split}'; shipped: ${Object.keys(shippedSplits).join(', ')} (or a task file)`,
          {
            code: 'unknown-split',
          },
        );
      }
      return loadDbbenchFile(path, split, engineNote(backend));
    },

    async open(task: DbbenchTask, openOptions?: OpenOptions) {
      openOptions?.signal?.throwIfAborted();
      const session = await backend.openSession(task);
      return new DbbenchEpisode(task, session, scoring);
    },

    oraclePlan(task: DbbenchTask): OraclePlan {
      return dbbenchOraclePlan(task, backend.dialect);
    },

    emptyPlan(task: DbbenchTask): OraclePlan {
      return {
        taskId: task.id,
        nodes: [{ kind: 'act', action: { tool: 'commit_final_answer', arguments: { answers: [] } } }],
      };
    },

    close: () => backend.close(),
  };
}
