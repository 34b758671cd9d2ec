import { type Action, mapConcurrent, rightPath } from '@harness-s/core';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerTestsEnabled } from './__fixtures__/docker.js';
import { createSwegymEnvironment, type SandboxKind, type SwegymEnvironment } from './environment.js';
import type { InstanceReport } from './grading.js';
import type { SweTask } from './instance.js';
import { goldPatchPlan, swegymEmptyPlan } from './oracle-plan.js';

const dockerEnabled = await dockerTestsEnabled();

/** Runs actions in a fresh episode and returns the grading report. */
async function grade(environment: SwegymEnvironment, task: SweTask, actions: Action[]): Promise<InstanceReport> {
  const episode = await environment.open(task);
  try {
    for (const action of actions) if ((await episode.step(action)).done) break;
    return (await episode.evaluate()).details['report'] as InstanceReport;
  } finally {
    await episode.close();
  }
}

/**
 * SWE-bench's validation of instances: the gold patch resolves every instance (FULL) and the
 * empty patch resolves none, here on every embedded instance and in both sandboxes.
 */
function validate(kind: SandboxKind): void {
  const environment = createSwegymEnvironment({ sandbox: kind, actionsFrom: 'plan', maxIdleSandboxes: 2 });
  afterAll(() => environment.close());

  it(`gold patches resolve every embedded instance and empty patches none (${kind} sandbox)`, async () => {
    const { tasks, unloadable } = await environment.loadTasks({ split: 'all' });
    expect(unloadable).toEqual([]);
    expect(tasks).toHaveLength(18);
    const outcomes = await mapConcurrent(tasks, 2, async (task) => ({
      id: task.id,
      gold: await grade(environment, task, rightPath(goldPatchPlan(task).nodes)),
      empty: await grade(environment, task, rightPath(swegymEmptyPlan(task).nodes)),
    }));
    for (const { id, gold, empty } of outcomes) {
      expect({ id, gold: gold.resolution, error: gold.error }).toEqual({ id, gold: 'FULL', error: null });
      expect({ id, empty: empty.resolution, exists: empty.patch_exists }).toEqual({ id, empty: 'NO', exists: false });
      // Empty patches are graded for real: every FAIL_TO_PASS test fails at the base commit.
      expect(empty.tests_status.FAIL_TO_PASS.success).toEqual([]);
      expect(empty.tests_status.PASS_TO_PASS.failure).toEqual([]);
    }
    expect(environment.pool.inUse).toBe(0);
  }, 900_000);
}

describe('embedded instance validation, local sandbox', () => validate('local'));
describe.runIf(dockerEnabled)('embedded instance validation, Docker sandbox', () => validate('docker'));
