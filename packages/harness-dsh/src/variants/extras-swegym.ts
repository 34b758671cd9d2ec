import type { Action, Trajectory } from '@harness-s/core';
import type { EnvironmentExtras, FailureSignal } from './extras-types.js';

const command = (action: Action): string | null =>
  action.tool === 'bash' && typeof action.arguments['command'] === 'string' ? action.arguments['command'] : null;

/** Commands that run a test suite (the runners of the embedded repositories and SWE-Gym's). */
const testRun =
  /\b(pytest|unittest|node --test|npm (run )?test|npx (jest|vitest|mocha)|go test|cargo test|tox|make test)\b/;
/** Commands that edit the working tree. */
const edit = /<<'?PYEDIT|\bsed -i\b|\bgit apply\b|\bgit checkout --|\bpatch\b|\btee\b|(^|[^&|>])>\s*[\w./-]/;

/** Commands that run the code (a reproduction), as opposed to reading or editing it. */
const runsCode = /^\s*(python3? (?!-\s*<<)|node |npm |npx |pytest|go (run|test)|cargo (run|test)|make\b)/;

/** A check's counts, from details like `1/2 pass; failing: ...`. */
const passCount = (detail: string | undefined) => {
  const match = /^(\d+)\/(\d+) pass/.exec(detail ?? '');
  return match ? { passed: Number(match[1]), total: Number(match[2]) } : null;
};

/** Failure signals of SWE-Gym trajectories: untested or unreproduced fixes, partial fixes, collateral damage. */
function swegymFailureSignals(trajectory: Trajectory): FailureSignal[] {
  const signals: FailureSignal[] = [];
  const commands = trajectory.turns.flatMap((turn) =>
    turn.actions.flatMap((record) => {
      const text = command(record.action);
      if (text === null) return [];
      // A test run that reports failures is a failure even when the harness saw exit code 0.
      const reportsFailures =
        testRun.test(text) && /FAILED|\bfailures?\b|\bnot ok\b|Traceback/.test(record.result.observation);
      return [{ turn: turn.index, text, failed: record.result.error !== undefined || reportsFailures }];
    }),
  );
  const checks = new Map((trajectory.evaluation?.checks ?? []).map((check) => [check.name, check]));
  const failToPass = checks.get('FAIL_TO_PASS');
  const passToPass = checks.get('PASS_TO_PASS');
  const tests = commands.filter((item) => testRun.test(item.text));
  const firstEdit = commands.findIndex((item) => edit.test(item.text));

  if (failToPass && !failToPass.passed) {
    const counts = passCount(failToPass.detail);
    if (counts && counts.passed > 0 && counts.passed < counts.total) {
      signals.push({ kind: 'partial-fix', skill: 'fix-all-call-sites', evidence: `FAIL_TO_PASS ${failToPass.detail}` });
    } else if (firstEdit >= 0 && !commands.slice(0, firstEdit).some((item) => runsCode.test(item.text))) {
      signals.push({
        kind: 'no-reproduction',
        skill: 'reproduce-first',
        evidence: `edited at turn ${commands[firstEdit]?.turn} without running anything first`,
      });
    }
    const lastTest = tests.at(-1);
    if (!lastTest) {
      signals.push({
        kind: 'untested-submit',
        skill: 'run-tests-before-submit',
        evidence: 'submitted without running the tests',
      });
    } else if (lastTest.failed) {
      signals.push({
        kind: 'submitted-despite-failing-tests',
        skill: 'recover-from-error',
        evidence: `tests failed at turn ${lastTest.turn}, then submitted`,
      });
    }
  }
  if (passToPass && !passToPass.passed) {
    signals.push({
      kind: 'collateral-damage',
      skill: 'check-diff-before-submit',
      evidence: `PASS_TO_PASS ${passToPass.detail}`,
    });
  }
  return signals;
}

/** SWE-Gym's extras: which commands change the repository, and its failure signals. */
export const swegymExtras: EnvironmentExtras = {
  env: 'swegym',
  transforms: [],
  changesState: (action) => {
    const text = command(action);
    return text !== null && edit.test(text);
  },
  verificationSkill: 'check-diff-before-submit',
  recoverySkill: 'recover-from-error',
  skillDirections: {
    'reproduce-first': 'reproduction',
    'fix-all-call-sites': 'fix-completeness',
    'run-tests-before-submit': 'test-verification',
    'recover-from-error': 'error-recovery',
    'check-diff-before-submit': 'diff-review',
  },
  failureSignals: swegymFailureSignals,
};
