import { runAttempt } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { describe, expect, it } from 'vitest';
import { createSeededCounterPolicy } from '../test/counter-fleet.js';
import { attemptIdOfJob, jobIdForAttempt, queueNameForRun } from './names.js';
import { formatQueueEvent } from './queue-runner.js';
import { RolloutJob, RolloutResult } from './rollout-job.js';
import { RunEntry } from './run-registry.js';

describe('queue and job names', () => {
  it('gives each run folder its own queue, the same for the same folder however it is written', () => {
    const name = queueNameForRun('runs/train: a#b');
    expect(name).not.toContain(':');
    expect(name).toMatch(/^run-train-a-b-[0-9a-f]{12}$/);
    expect(queueNameForRun(`${process.cwd()}/runs/train: a#b`)).toBe(name);
    expect(queueNameForRun('runs/other/train: a#b')).not.toBe(name);
  });

  it('maps attempt ids to job ids BullMQ accepts, and back', () => {
    for (const attemptId of ['3:dev-7#h0#0', '12:swe/repo-1#v-1a2b#4', '42']) {
      const jobId = jobIdForAttempt(attemptId);
      expect(jobId).not.toContain(':');
      expect(String(Number.parseInt(jobId, 10))).not.toBe(jobId);
      expect(attemptIdOfJob(jobId)).toBe(attemptId);
    }
    expect(jobIdForAttempt('1:a#h0#0')).not.toBe(jobIdForAttempt('1:a#h0#1'));
  });
});

describe('rollout job and result schemas', () => {
  const harness = createPlainHarness();
  const job = {
    schemaVersion: 1,
    runId: 'runs/x',
    attemptId: '1:count-1#plain#0',
    env: 'counter',
    task: { id: 'count-1', split: 'dev' },
    harness: harness.spec,
    policy: { kind: 'seeded-counter', skill: 0.5 },
    policyVersion: 'seeded-counter@0.5',
    attempt: 0,
    seed: 11,
    maxInfraRetries: 2,
  };

  it('accepts a complete job and refuses one with a missing or unknown field', () => {
    expect(RolloutJob.parse(job)).toEqual(job);
    const { seed: _, ...withoutSeed } = job;
    expect(RolloutJob.safeParse(withoutSeed).success).toBe(false);
    expect(RolloutJob.safeParse({ ...job, priority: 1 }).success).toBe(false);
    expect(RolloutJob.safeParse({ ...job, harness: { ...harness.spec, codec: 'none' } }).success).toBe(false);
  });

  it('carries a trajectory through JSON and validation unchanged', async () => {
    const { environment } = createCounterEnvironment();
    const [task] = (await environment.loadTasks({})).tasks;
    if (!task) throw new Error('no counter task');
    const trajectory = await runAttempt({
      environment,
      task,
      harness,
      policy: createSeededCounterPolicy(0.5),
      runId: 'runs/x',
      attempt: 0,
      seed: 11,
    });
    const travelled = JSON.parse(
      JSON.stringify({
        schemaVersion: 1,
        attemptId: job.attemptId,
        trajectory,
        worker: { name: 'w', host: 'h', pid: 1 },
      }),
    );
    expect(RolloutResult.parse(travelled)).toEqual(travelled);
    expect(RolloutResult.safeParse({ ...travelled, trajectory: { ...trajectory, evaluation: 'ok' } }).success).toBe(
      false,
    );
  });

  it('reads run announcements with and without the end mark', () => {
    const entry = { queueName: 'run-x', env: 'dbbench', runId: 'runs/x', updatedAt: 1 };
    expect(RunEntry.parse(entry)).toEqual(entry);
    expect(RunEntry.parse({ ...entry, ended: true }).ended).toBe(true);
    expect(RunEntry.safeParse({ ...entry, env: '' }).success).toBe(false);
  });
});

describe('queue event lines', () => {
  it('reports lost, parked and outage events and stays quiet on routine ones', () => {
    expect(formatQueueEvent({ kind: 'requeued', attemptId: '1:a#h0#0', reason: 'lost' })).toMatch(
      /1:a#h0#0 vanished from Redis/,
    );
    expect(
      formatQueueEvent({ kind: 'parked', attemptId: '1:a#h0#0', reason: 'parked after 2 tries: x', tries: 2 }),
    ).toMatch(/parked after 2 tries: x; recorded as an infrastructure error/);
    expect(formatQueueEvent({ kind: 'redis-back', downMs: 1500 })).toMatch(/after 1\.5 s/);
    expect(formatQueueEvent({ kind: 'enqueued', queueName: 'q', attempts: 3 })).toBeNull();
  });
});
