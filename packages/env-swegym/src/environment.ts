import { randomBytes } from 'node:crypto';
import {
  ConfigError,
  type Environment,
  type OpenOptions,
  type OraclePlan,
  type TaskSet,
  type TaskSource,
  type Trajectory,
  withHardness,
} from '@harness-s/core';
import { type ContainerLimits, containerLabels } from './container-spec.js';
import type { RepositoryOverrides } from './conventions.js';
import { createDockerSandboxProvider } from './docker-provider.js';
import { embeddedImageName, embeddedInstancesPath } from './embedded-repos.js';
import { SweEpisode } from './episode.js';
import { GradeCache } from './grading.js';
import type { SweTask } from './instance.js';
import { createLocalSandboxProvider } from './local-sandbox.js';
import { embeddedOraclePlan, goldPatchPlan, swegymEmptyPlan, swegymSkills } from './oracle-plan.js';
import { loadSweInstances } from './records.js';
import { swebenchReportLines, swebenchRunReport } from './run-report.js';
import { SandboxPool } from './sandbox-pool.js';
import type { SweSandboxProvider, Workspace } from './swe-sandbox.js';
import { swegymHardness } from './task-hardness.js';

/** The splits of the embedded instance set; `all` is their union. */
export const embeddedSplits = ['train', 'dev', 'test', 'all'] as const;

export type SandboxKind = 'local' | 'docker';

export interface SwegymEnvironmentOptions {
  /**
   * Where episodes run: local processes in temporary clones, or Docker containers (no network,
   * limits). Default: local for actions from plans, Docker for a model's.
   */
  sandbox?: SandboxKind;
  /**
   * Where the episodes' actions come from: the environment's own plans (the simulated, oracle and
   * empty policies) or a model writing its own commands (default: a model). The local sandbox
   * confines nothing, so a model's commands run there only with `unconfined`.
   */
  actionsFrom?: 'plan' | 'model';
  /** Let a model's commands run in the local sandbox, on this machine, unconfined. */
  unconfined?: boolean;
  /** A provider of one's own (tests); overrides `sandbox`. */
  provider?: SweSandboxProvider;
  /** Container limits (Docker). */
  limits?: Partial<ContainerLimits>;
  /** Runtime overrides by repository (`owner/name`). */
  repositoryOverrides?: RepositoryOverrides;
  /** Local git checkouts by repository, for real instances in the local sandbox. */
  localRepos?: Record<string, string>;
  /** The image of the embedded instances (default: `HARNESS_S_SWEGYM_IMAGE`, else `harness-s/swegym-embedded:2`). */
  embeddedImage?: string;
  /** Time limit of one agent command (default 60 s). */
  commandTimeoutMs?: number;
  /** Agent command output beyond this is cut to head and tail (default 10,000, as mini-swe-agent). */
  maxOutputChars?: number;
  /** Warm sandboxes kept between episodes (Docker; default 4). */
  maxIdleSandboxes?: number;
  /** The run label on every container (default: a fresh one per environment). */
  runLabel?: string;
  /** Where embedded repositories are built. */
  repositoryCache?: string;
  /**
   * Reuse the grade of a patch already graded on the same instance instead of running its tests
   * again: `embedded` (default; their tests are deterministic), `all`, or `off` (every episode
   * grades in its sandbox, as SWE-bench does; for instances with flaky tests).
   */
  cacheGrades?: 'embedded' | 'all' | 'off';
}

/** The SWE-Gym environment with its sandbox pool, for tests and the bench. */
export interface SwegymEnvironment extends Environment<SweTask> {
  readonly pool: SandboxPool;
  readonly sandboxKind: string;
  readonly runLabel: string;
  /** Grades reused by patch (see `cacheGrades`), with their hit and miss counts. */
  readonly grades: GradeCache;
}

/**
 * The sandbox an environment made with these options runs in. A model's commands (`actionsFrom`
 * unset or `model`) go to Docker unless told otherwise, and to the local sandbox only with
 * `unconfined`: anything else is a ConfigError (code `unconfined-actions`) before any work.
 */
export function sandboxFor(
  options: Pick<SwegymEnvironmentOptions, 'sandbox' | 'actionsFrom' | 'unconfined'> = {},
): SandboxKind {
  const fromPlans = options.actionsFrom === 'plan';
  const sandbox = options.sandbox ?? (fromPlans ? 'local' : 'docker');
  if (sandbox === 'local' && !fromPlans && !options.unconfined) {
    throw new ConfigError(
      'swegym: the local sandbox runs every command on this machine, unconfined, and a model writes its own commands; use the docker sandbox (no network, resource limits), or allow unconfined commands to run them here anyway',
      { code: 'unconfined-actions' },
    );
  }
  return sandbox;
}

/**
 * SWE-Gym: fix a repository so its tests pass, graded as SWE-bench grades. Runs SWE-Gym/SWE-bench
 * instances from a JSONL file (`--data`), or the embedded instances (splits train, dev, test, all)
 * in local or Docker sandboxes.
 */
export function createSwegymEnvironment(options: SwegymEnvironmentOptions = {}): SwegymEnvironment {
  const kind = options.provider?.kind ?? sandboxFor(options);
  const provider =
    options.provider ??
    (kind === 'docker'
      ? createDockerSandboxProvider(options.limits ? { limits: options.limits } : {})
      : createLocalSandboxProvider());
  const runLabel = options.runLabel ?? `swegym-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pool = new SandboxPool({
    provider,
    // Local clones are cheap and made per episode; containers are kept warm and reset.
    reuse: provider.kind === 'docker',
    maxIdle: options.maxIdleSandboxes ?? 4,
    labels: containerLabels(runLabel),
  });
  const commandTimeoutMs = options.commandTimeoutMs ?? 60_000;
  const maxOutputChars = options.maxOutputChars ?? 10_000;
  const cacheGrades = options.cacheGrades ?? 'embedded';
  const grades = new GradeCache();

  const imageOf = (task: SweTask): string | undefined => {
    if (provider.kind !== 'docker') return undefined;
    return task.embedded ? (options.embeddedImage ?? embeddedImageName()) : task.runtime.image;
  };
  const workspaceOf = (task: SweTask): Workspace => {
    const { runtime, instance } = task;
    // Docker: a host repository is copied in (embedded); without one the image holds it (SWE-Gym).
    if (runtime.hostRepo && (provider.kind !== 'docker' || task.embedded)) {
      return { kind: 'host', hostRepo: runtime.hostRepo, repoPath: runtime.repoPath, baseCommit: instance.baseCommit };
    }
    return { kind: 'image', repoPath: runtime.repoPath, baseCommit: instance.baseCommit };
  };

  return {
    id: 'swegym',
    splits: embeddedSplits,
    skills: swegymSkills,
    pool,
    sandboxKind: provider.kind,
    runLabel,
    grades,

    async loadTasks(source: TaskSource): Promise<TaskSet<SweTask>> {
      const shared = {
        ...(options.repositoryOverrides ? { repositoryOverrides: options.repositoryOverrides } : {}),
        ...(options.localRepos ? { localRepos: options.localRepos } : {}),
        ...(options.repositoryCache ? { repositoryCache: options.repositoryCache } : {}),
      };
      if (source.file) return loadSweInstances(source.file, shared);
      const split = source.split ?? 'dev';
      if (!(embeddedSplits as readonly string[]).includes(split)) {
        throw new ConfigError(
          `swegym has no split '${split}'; shipped: ${embeddedSplits.join(', ')} (or a task file)`,
          {
            code: 'unknown-split',
          },
        );
      }
      return loadSweInstances(embeddedInstancesPath, {
        ...shared,
        split,
        embeddedSplit: split as (typeof embeddedSplits)[number],
      });
    },

    async open(task: SweTask, openOptions?: OpenOptions) {
      const signal = openOptions?.signal;
      const image = imageOf(task);
      const workspace = workspaceOf(task);
      // The episode's sandbox: the one acquired here, or the one that replaced it.
      let current = await pool.acquire(image, workspace, signal);
      // An interrupted run drops the sandbox at once, killing whatever command is running in it.
      const onAbort = () => void pool.discard(current);
      signal?.addEventListener('abort', onAbort, { once: true });
      const cached = cacheGrades === 'all' || (cacheGrades === 'embedded' && task.embedded !== null);
      return new SweEpisode(task, current, {
        commandTimeoutMs,
        maxOutputChars,
        ...(cached ? { grades } : {}),
        release: async (used) => {
          signal?.removeEventListener('abort', onAbort);
          await pool.release(used);
        },
        replace: async (broken) => {
          await pool.discard(broken);
          current = await pool.acquire(image, workspace, signal);
          return current;
        },
      });
    },

    oraclePlan(task: SweTask): OraclePlan {
      return task.embedded ? withHardness(embeddedOraclePlan(task), swegymHardness(task)) : goldPatchPlan(task);
    },

    emptyPlan: swegymEmptyPlan,

    extendSummary(trajectories: readonly Trajectory[]) {
      return { swebench: swebenchRunReport(trajectories) };
    },

    summaryLines: swebenchReportLines,

    async close() {
      await pool.destroyAll();
      await provider.close();
    },
  };
}
