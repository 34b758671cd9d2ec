import { HarnessSpec, Trajectory } from '@harness-s/core';
import { z } from 'zod';

/**
 * A policy as data: what `policy.describe()` returns. The simulated policy describes itself with its
 * whole configuration and step (`{ kind: 'simulated', step, theta, ... }`), an OpenAI-compatible
 * policy with its settings (never the API key: workers read their own `OPENAI_API_KEY`). A worker
 * rebuilds the policy from it through the factory it was given.
 */
export const PolicyDescription = z.record(z.string(), z.unknown());
export type PolicyDescription = z.infer<typeof PolicyDescription>;

/** One attempt for a worker to run: everything it needs, as data. */
export const RolloutJob = z.strictObject({
  schemaVersion: z.literal(1),
  /** The training run (its folder); recorded in the trajectory like an in-process attempt. */
  runId: z.string().min(1),
  /** Unique within the run and stable across resumes (`<step>:<taskId>#<harnessId>#<attempt>`). */
  attemptId: z.string().min(1),
  /** The environment id the worker must serve (`dbbench`). */
  env: z.string().min(1),
  /** The task, looked up by id in its split by the worker. */
  task: z.strictObject({ id: z.string().min(1), split: z.string() }),
  /** The harness to run under, as data (H0 or a variant of the sibling pool). */
  harness: HarnessSpec,
  policy: PolicyDescription,
  /** The version the rebuilt policy must have; a worker refuses a job it would run with other parameters. */
  policyVersion: z.string().min(1),
  attempt: z.number().int().nonnegative(),
  seed: z.number().int(),
  maxInfraRetries: z.number().int().nonnegative(),
});
export type RolloutJob = z.infer<typeof RolloutJob>;

/** Who ran an attempt, for the logs of the producer. */
export const WorkerIdentity = z.strictObject({ name: z.string(), host: z.string(), pid: z.number().int() });
export type WorkerIdentity = z.infer<typeof WorkerIdentity>;

/** What a worker returns for a job: the trajectory with its evaluation, and who made it. */
export const RolloutResult = z.strictObject({
  schemaVersion: z.literal(1),
  attemptId: z.string().min(1),
  trajectory: Trajectory,
  worker: WorkerIdentity,
});
export type RolloutResult = z.infer<typeof RolloutResult>;
