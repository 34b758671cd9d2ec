import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { evalDueAfter, readJson, trainFiles } from '@harness-s/core';
import type { ProfilingProgress } from '@harness-s/router';
import { partsProgress } from '../progress.js';

/** A progress bar per phase of a step that runs attempts (base, rescue, eval), replaced as phases change. */
export function phaseProgress() {
  const bars = partsProgress();
  const began = new Map<string, number>();
  return {
    /** A phase starts (before its first attempt). */
    begin: (step: number, phase: string) => {
      began.clear();
      began.set(`${step}:${phase}`, Date.now());
    },
    /** How long a phase has run, in ms (0 for one not begun). */
    runFor: (step: number, phase: string) => Date.now() - (began.get(`${step}:${phase}`) ?? Date.now()),
    show: (step: number, phase: string, { done, total }: { done: number; total: number }) =>
      bars.update(
        `${step}:${phase}`,
        `${step === 0 && phase === 'eval' ? 'before training' : `step ${step}`} ${phase}`,
        done,
        total,
        `${done} of ${total} attempts`,
        began.get(`${step}:${phase}`),
      ),
    stop: bars.stop,
  };
}

/** What a continued run says first: where it picks up, and what it does again. */
export async function resumeLine(dir: string, steps: number, evalEvery?: number): Promise<string> {
  const path = join(dir, trainFiles.checkpoint);
  const checkpoint = existsSync(path) ? ((await readJson(path)) as { step?: number; evals?: { step?: number }[] }) : {};
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
  return (
    `Continuing ${dir}${ended ? `, which ended after step ${done}` : ` from its checkpoint after step ${done}`}: ${done + 1 === steps ? `step ${steps}` : `steps ${done + 1}-${steps}`} to go` +
    (ended || evalNote ? evalNote : ` (step ${done + 1}, cut short by the stop, starts over)`)
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
