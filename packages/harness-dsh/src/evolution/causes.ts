import type { HarnessSpec, Trajectory } from '@harness-s/core';
import { z } from 'zod';
import {
  actionFormatSkillDescription,
  directionOfSkill,
  type EnvironmentExtras,
  environmentExtras,
} from '../variants/extras.js';

/** One cause of a failed trajectory, with the repair direction that addresses it. */
export const FailureCause = z.strictObject({
  /** e.g. `skipped-inspection`, `format-error`, `step-limit`, `unrecovered-error:sql-error`. */
  kind: z.string().min(1),
  /** The repair direction, e.g. `schema-grounding`, `error-recovery`, `step-budget`. */
  direction: z.string().min(1),
  /** The skill that would have avoided it, when one does. */
  skill: z.string().optional(),
  /** What in the trajectory shows it. */
  evidence: z.string(),
});
export type FailureCause = z.infer<typeof FailureCause>;

/** The causes found in one failed trajectory, and who found them. */
export const FailureAnalysis = z.strictObject({
  trajectoryId: z.string(),
  taskId: z.string(),
  /** `built-in`, or `llm:<model>`; `built-in (fallback)` when the LLM's answer was unusable. */
  analyser: z.string(),
  causes: z.array(FailureCause),
});
export type FailureAnalysis = z.infer<typeof FailureAnalysis>;

/** Finds the causes of a failed trajectory under a harness. */
export interface FailureAnalyser {
  readonly id: string;
  analyse(trajectory: Trajectory, harness: HarnessSpec): Promise<FailureAnalysis>;
}

/** Whether an attempt failed and so has causes to find (infrastructure failures have none). */
export const isFailure = (trajectory: Trajectory): boolean =>
  trajectory.evaluation !== null && !trajectory.evaluation.success;

/**
 * Causes from trajectory signals alone: format errors, the step limit, action errors never
 * recovered from, the environment's own signals (guessed columns, missing pages, failing
 * tests...), observations the harness cut, and failed checks when nothing else explains them.
 */
export function builtInCauses(trajectory: Trajectory, harness: HarnessSpec, extras: EnvironmentExtras): FailureCause[] {
  if (!isFailure(trajectory)) return [];
  const causes: FailureCause[] = [];
  const add = (cause: FailureCause) => {
    if (!causes.some((known) => known.kind === cause.kind && known.skill === cause.skill)) causes.push(cause);
  };

  for (const signal of extras.failureSignals?.(trajectory) ?? []) {
    add({ ...signal, direction: signal.skill ? directionOfSkill(extras, signal.skill) : 'verification' });
  }
  const formatErrors = trajectory.turns.filter((turn) => turn.formatError !== undefined);
  if (trajectory.stopReason === 'format-error-limit' || formatErrors.length >= 2) {
    add({
      kind: 'format-error',
      skill: actionFormatSkillDescription.name,
      direction: actionFormatSkillDescription.name,
      evidence: `${formatErrors.length} turns without a valid action; first: ${formatErrors[0]?.formatError?.slice(0, 100) ?? ''}`,
    });
  }
  if (trajectory.stopReason === 'step-limit') {
    add({ kind: 'step-limit', direction: 'step-budget', evidence: `stopped after ${trajectory.turns.length} turns` });
  }

  const actions = trajectory.turns.flatMap((turn) => turn.actions.map((record) => ({ turn: turn.index, ...record })));
  const lastError = actions.findLastIndex((record) => record.result.error !== undefined);
  const errorRecord = actions[lastError];
  const recovered = actions.slice(lastError + 1).some((record) => !record.result.error && !record.result.done);
  if (errorRecord?.result.error && !recovered && !causes.some((cause) => cause.direction === 'error-recovery')) {
    add({
      kind: `unrecovered-error:${errorRecord.result.error.kind}`,
      direction: 'error-recovery',
      ...(extras.recoverySkill ? { skill: extras.recoverySkill } : {}),
      evidence: `turn ${errorRecord.turn}: ${errorRecord.result.error.message.slice(0, 120)}`,
    });
  }

  if (causes.length === 0) {
    const limit = harness.context.maxObservationChars;
    const cut = limit === null ? undefined : actions.find((record) => record.result.observation.length > limit);
    if (cut) {
      add({
        kind: 'truncated-observation',
        direction: 'context',
        evidence: `turn ${cut.turn}: an observation of ${cut.result.observation.length} characters was cut at ${limit}`,
      });
    }
  }
  if (causes.length === 0) {
    for (const check of trajectory.evaluation?.checks ?? []) {
      if (check.passed) continue;
      add({
        kind: `failed-check:${check.name}`,
        direction: 'verification',
        ...(extras.verificationSkill ? { skill: extras.verificationSkill } : {}),
        evidence: check.detail?.slice(0, 160) ?? check.name,
      });
    }
  }
  return causes;
}

/** The built-in analyser of an environment. */
export function createBuiltInAnalyser(env: string): FailureAnalyser {
  const extras = environmentExtras(env);
  return {
    id: 'built-in',
    async analyse(trajectory, harness) {
      return {
        trajectoryId: trajectory.id,
        taskId: trajectory.taskId,
        analyser: 'built-in',
        causes: builtInCauses(trajectory, harness, extras),
      };
    },
  };
}

/**
 * The router's reading of a failed attempt (`AdaptiveRouter`'s `diagnose`): the repair directions
 * of the causes the environment's built-in failure analysis finds in it, under the base harness
 * `h0`; what `--failure-ranker` uses.
 */
export function builtInDiagnosis(env: string, h0: HarnessSpec): (trajectory: Trajectory) => Promise<string[]> {
  const analyser = createBuiltInAnalyser(env);
  return async (trajectory) => (await analyser.analyse(trajectory, h0)).causes.map((cause) => cause.direction);
}
