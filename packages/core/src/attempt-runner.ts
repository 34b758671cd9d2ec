import { runAttempt } from './agent-loop.js';
import { mapConcurrent } from './concurrency.js';
import type { Environment } from './environment.js';
import { InfrastructureError } from './errors.js';
import type { Harness } from './harness.js';
import type { Policy } from './policy.js';
import type { Task } from './task.js';
import type { Trajectory } from './trajectory.js';

/** One attempt to run: of a training step, an evaluation or a profiling. */
export interface AttemptRequest<T extends Task = Task> {
  /** Unique within the run and stable across resumes, e.g. `3:dev-7#v-1a2b#0`. */
  attemptId: string;
  task: T;
  harness: Harness;
  attempt: number;
  seed: number;
}

export interface AttemptBatch<T extends Task = Task> {
  runId: string;
  environment: Environment<T>;
  /** The policy as it is for this whole batch (its parameters do not change within a step). */
  policy: Policy;
  requests: readonly AttemptRequest<T>[];
  maxInfraRetries: number;
  signal?: AbortSignal;
  /** Called as each attempt ends (by a runner that sees them end one by one). */
  onAttempt?: (trajectory: Trajectory) => void;
}

/**
 * Runs a batch of attempts and returns their trajectories in request order. The default runs
 * them in process with bounded concurrency; a job-queue runner spreads them over worker machines.
 */
export interface AttemptRunner {
  readonly id: string;
  run<T extends Task>(batch: AttemptBatch<T>): Promise<Trajectory[]>;
}

/** Attempts in this process, at most `concurrency` at once. */
export function inProcessRunner(concurrency: number): AttemptRunner {
  return {
    id: 'in-process',
    run: (batch) =>
      mapConcurrent(batch.requests, concurrency, (request) =>
        runAttempt(
          {
            environment: batch.environment,
            task: request.task,
            harness: request.harness,
            policy: batch.policy,
            runId: batch.runId,
            attempt: request.attempt,
            seed: request.seed,
            ...(batch.signal ? { signal: batch.signal } : {}),
          },
          { maxInfraRetries: batch.maxInfraRetries },
        ).then((trajectory) => {
          batch.onAttempt?.(trajectory);
          return trajectory;
        }),
      ),
  };
}

/**
 * The error that stops a run when every attempt of a phase ended in an infrastructure error (a
 * model server or a service that is down): named with the first error, and the run resumes from
 * its last checkpoint once the cause is fixed.
 */
export function everyAttemptLost(phase: string, trajectories: readonly Trajectory[]): InfrastructureError {
  const first = trajectories.flatMap((trajectory) => trajectory.infraErrors)[0];
  return new InfrastructureError(
    `${phase}: every attempt ended in an infrastructure error${first ? ` (the first: ${first.message})` : ''}; the run stops here, and resumes from its last checkpoint once the cause is fixed`,
    { code: 'every-attempt-lost' },
  );
}
