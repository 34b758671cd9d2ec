import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { countOf, evalDueAfter, readJson, type StepMetrics, trainFiles } from '@harness-s/core';
import type { ProfilingProgress } from '@harness-s/router';
import { partsProgress } from '../progress.js';

/**
 * A step's batch in the opening line: its tasks, or, when it is larger than the training split, its
 * groups and the tasks they cycle through (`batchFor` takes them epoch by epoch).
 */
export const batchText = (batchSize: number, trainTasks: number): string =>
  batchSize > trainTasks
    ? `${countOf(batchSize, 'group')} (cycling through the ${countOf(trainTasks, 'train task')})`
    : countOf(batchSize, 'task');

/**
 * A progress bar per phase of a step that runs attempts (base, rescue, eval), replaced as phases
 * change: from the start for a model's attempts (`always`), else once a phase has run `afterMs`
 * (the simulated policy's take a second, except where episodes are slow: containers starting).
 */
export function phaseProgress(options: { always: boolean; afterMs?: number }) {
  const afterMs = options.afterMs ?? 10_000;
  const bars = partsProgress();
  let current: { part: string; label: string; began: number; done: number; total: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const show = () => {
    if (current)
      bars.update(
        current.part,
        current.label,
        current.done,
        current.total,
        `${current.done} of ${current.total} attempts`,
        current.began,
      );
  };
  return {
    /** A phase's attempts: how many have ended, of how many (0 ended as it starts). */
    attempts: (step: number, phase: string, { done, total }: { done: number; total: number }) => {
      const part = `${step}:${phase}`;
      if (current?.part !== part) {
        clearTimeout(timer);
        const label = `${step === 0 && phase === 'eval' ? 'before training' : `step ${step}`} ${phase}`;
        current = { part, label, began: Date.now(), done, total };
        // A phase whose first attempts take long shows its bar then, not at its first attempt's end.
        if (!options.always && done < total) {
          timer = setTimeout(show, afterMs);
          timer.unref();
        }
      }
      current.done = done;
      current.total = total;
      if (options.always || Date.now() - current.began >= afterMs) show();
      if (done >= total) clearTimeout(timer);
    },
    stop: () => {
      clearTimeout(timer);
      current = undefined;
      bars.stop();
    },
  };
}

/**
 * What a step line of a method that rescues says of its all-failed groups: how many a rescue found a
 * success for, and how many the router left as they were (it chose no variant for them; they train
 * as under plain GRPO).
 */
export function rescueText(metrics: Pick<StepMetrics, 'rescueTriggered' | 'rescued' | 'rescueSucceeded'>): string {
  const { rescueTriggered: failed, rescued = failed, rescueSucceeded } = metrics;
  if (failed === 0) return '';
  const left = failed - rescued;
  return ` (${rescueSucceeded} rescued${left > 0 ? `; the router chose no variant for ${countOf(left, 'group')}` : ''})`;
}

/** What a continued run says first: where it picks up, and what it does again. */
export async function resumeLine(dir: string, steps: number, evalEvery?: number): Promise<string> {
  const path = join(dir, trainFiles.checkpoint);
  const checkpoint = existsSync(path)
    ? ((await readJson(path)) as { step?: number; evals?: { step?: number }[]; router?: { anchoredAt?: unknown } })
    : {};
  const done = checkpoint.step;
  if (done === undefined) return `Continuing ${dir}: no checkpoint yet, so it starts again from the beginning`;
  // Read before the continuation records its own: how far the run was to go, and whether it ended.
  const read = async (file: string) => (existsSync(join(dir, file)) ? await readJson(join(dir, file)) : undefined);
  const recordedSteps = ((await read(trainFiles.config)) as { config?: { steps?: number } } | undefined)?.config?.steps;
  const ended = ((await read(trainFiles.summary)) as { steps?: number } | undefined)?.steps === done;
  let evalNote = '';
  if (evalDueAfter({ steps, evalEvery }, done) && !checkpoint.evals?.some((point) => point.step === done))
    evalNote = evalDueAfter({ steps: recordedSteps ?? steps, evalEvery }, done)
      ? // Stopped during the evaluation after its last step: the step is kept, the evaluation runs again.
        `; the evaluation under H0 after step ${done}, cut short by the stop, runs first`
      : `; step ${done} is now the last, so its evaluation under H0 runs first`;
  if (done >= steps) return `Continuing ${dir}: all ${steps} steps are done${evalNote}`;
  const next = done + 1;
  // The stop may have come in the step, in the router's re-anchoring before it, or between steps.
  const restart =
    checkpoint.router?.anchoredAt === next
      ? ` (step ${next} starts over; the router's re-anchoring before it was done and is kept)`
      : ` (step ${next} starts over: the stop came before it was done)`;
  return (
    `Continuing ${dir}${ended ? `, which ended after step ${done}` : ` from its checkpoint after step ${done}`}: ${next === steps ? `step ${steps}` : `steps ${next}-${steps}`} to go` +
    (ended || evalNote ? evalNote : restart)
  );
}

/**
 * Progress of the router's (re-)anchorings: H0 and every variant on the validation tasks, which
 * with a served model is most of a run's episodes before its first step.
 */
export function anchoringProgress() {
  const bars = partsProgress();
  const onProfiling = ({ harnessId, done, total, tasks, step }: ProfilingProgress) =>
    bars.update(
      String(step),
      `router: anchoring profiles (step-${step} policy, ${tasks} tasks)`,
      done,
      total,
      harnessId,
    );
  return { onProfiling, stop: bars.stop };
}
