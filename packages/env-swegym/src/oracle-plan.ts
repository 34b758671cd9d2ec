import type { Action, OraclePlan, PlanNode, SkillDescription } from '@harness-s/core';
import type { Edit, SweTask } from './instance.js';
import { heredocDelimiter, shellQuote } from './shell.js';

/** The skills SWE-Gym's decision points name. */
export const swegymSkills: readonly SkillDescription[] = [
  {
    name: 'reproduce-first',
    description: 'reproduce the bug before changing code, instead of patching the first suspect',
  },
  {
    name: 'fix-all-call-sites',
    description: 'fix every place that has the same mistake, not only the first one found',
  },
  { name: 'run-tests-before-submit', description: 'run the tests before submitting' },
  {
    name: 'recover-from-error',
    description: 'when a test or command shows the change is wrong, fix it instead of submitting anyway',
  },
  {
    name: 'check-diff-before-submit',
    description: 'review the diff before submitting and remove debug code and changed fixtures',
  },
];

const act = (action: Action, thought?: string): PlanNode => ({ kind: 'act', action, ...(thought ? { thought } : {}) });
const decide = (skill: string, right: PlanNode[], wrong: PlanNode[]): PlanNode => ({
  kind: 'decide',
  skill,
  right,
  wrong,
});
const bash = (command: string, thought?: string): PlanNode => act({ tool: 'bash', arguments: { command } }, thought);
const submit = (thought: string): PlanNode => act({ tool: 'submit', arguments: {} }, thought);

/** A Python string literal (JSON's escapes are all valid in Python). */
const pythonString = (text: string): string => JSON.stringify(text);

/**
 * A command that replaces the one occurrence of `find` in a file, failing loudly when the text is
 * not there exactly once: how an agent without an editor tool edits files.
 */
export function editCommand(edit: Edit): string {
  const body = [
    'from pathlib import Path',
    `path = Path(${pythonString(edit.file)})`,
    "text = path.read_text(encoding='utf-8')",
    `old = ${pythonString(edit.find)}`,
    `new = ${pythonString(edit.replace)}`,
    'count = text.count(old)',
    'if count != 1:',
    "    raise SystemExit(f'{path}: expected the text to replace once, found it {count} times')",
    "path.write_text(text.replace(old, new), encoding='utf-8')",
    "print(f'edited {path}')",
  ].join('\n');
  const delimiter = heredocDelimiter(body, 'PYEDIT');
  return `python3 - <<'${delimiter}'\n${body}\n${delimiter}`;
}

/** The edit that undoes `edit`. */
export const reverseEdit = (edit: Edit): Edit => ({ file: edit.file, find: edit.replace, replace: edit.find });

/**
 * The oracle plan of an embedded instance. The right path: look at the code, reproduce (leaving a
 * debug print or an edited fixture behind), fix every call site, run the tests, review the diff and
 * remove the leftover, submit. Each decision point has a real wrong branch:
 *
 * - `reproduce-first`: patch the first suspect without reproducing; FAIL_TO_PASS keeps failing
 *   unless the tests are run and the agent starts over (`run-tests-before-submit`, `recover-from-error`).
 * - `fix-all-call-sites`: fix only the first call site, which grades PARTIAL unless the tests show
 *   the rest and it is fixed.
 * - `check-diff-before-submit`: submit with the debug print or the edited fixture, which breaks a
 *   PASS_TO_PASS test.
 */
export function embeddedOraclePlan(task: SweTask): OraclePlan {
  const oracle = task.embedded?.oracle;
  if (!oracle) return goldPatchPlan(task);
  const { debug } = oracle;
  const runTests = bash(oracle.testCommand, 'Running the tests.');
  const reproduce: PlanNode[] = [
    bash(
      editCommand(debug.edit),
      debug.kind === 'print'
        ? 'Adding a debug print to trace the values.'
        : 'Adding the failing case to the sample data.',
    ),
    bash(oracle.reproduce, 'Reproducing the issue.'),
  ];
  const removeLeftover =
    debug.kind === 'print'
      ? bash(editCommand(reverseEdit(debug.edit)), 'Removing the debug print.')
      : bash(`git checkout -- ${shellQuote(debug.edit.file)}`, 'Restoring the sample data I changed.');
  const finish = (remedy: PlanNode[]): PlanNode[] => [
    decide(
      'run-tests-before-submit',
      [runTests, ...(remedy.length ? [decide('recover-from-error', [...remedy, runTests], [])] : [])],
      [],
    ),
    decide(
      'check-diff-before-submit',
      [bash('git status --short && git diff', 'Reviewing my changes before submitting.'), removeLeftover],
      [],
    ),
    submit('The fix is complete; submitting.'),
  ];
  const fixEdits = oracle.fix.map((edit, index) =>
    bash(editCommand(edit), index === 0 ? 'Fixing the bug.' : 'The same mistake is in another place; fixing it too.'),
  );
  const [firstFix, ...otherFixes] = fixEdits;
  const fix: PlanNode[] =
    otherFixes.length > 0 && firstFix
      ? [
          decide(
            'fix-all-call-sites',
            [
              bash(
                `git grep -n ${shellQuote(searchTerm(oracle.fix))}`,
                'Checking for other places with the same logic.',
              ),
              ...fixEdits,
              ...finish([]),
            ],
            [firstFix, ...finish(otherFixes)],
          ),
        ]
      : [...fixEdits, ...finish([])];
  const wrongFix = oracle.wrongFix.map((edit) => bash(editCommand(edit), 'This looks like the cause; changing it.'));
  const startOver = bash('git checkout -- . && git status --short', 'My change does not fix it; starting over.');
  const giveUp = submit('I believe this fixes the issue; submitting.');
  return {
    taskId: task.id,
    nodes: [
      bash(oracle.explore, 'Let me look at the code first.'),
      decide(
        'reproduce-first',
        [...reproduce, ...fix],
        [
          ...wrongFix,
          decide(
            'run-tests-before-submit',
            [runTests, decide('recover-from-error', [startOver, ...reproduce, ...fix], [giveUp])],
            [giveUp],
          ),
        ],
      ),
    ],
  };
}

/** A word of the first fix's original text to grep for (its longest identifier). */
function searchTerm(fix: readonly Edit[]): string {
  const words = (fix[0]?.find ?? '').match(/[A-Za-z_][A-Za-z0-9_]{3,}/g) ?? ['TODO'];
  return words.reduce((longest, word) => (word.length > longest.length ? word : longest), '');
}

/** For instances without an embedded plan (real SWE-Gym instances): apply the gold patch and submit. */
export function goldPatchPlan(task: SweTask): OraclePlan {
  const patch = task.instance.goldPatch ?? '';
  const delimiter = heredocDelimiter(patch, 'GOLD_PATCH');
  return {
    taskId: task.id,
    nodes: [
      bash(
        `git apply --verbose <<'${delimiter}'\n${patch}${patch.endsWith('\n') ? '' : '\n'}${delimiter}`,
        'Applying the fix.',
      ),
      submit('Submitting the fix.'),
    ],
  };
}

/** SWE-bench's empty patch: submit at once, having changed nothing. */
export const swegymEmptyPlan = (task: SweTask): OraclePlan => ({
  taskId: task.id,
  nodes: [submit('Submitting without changes.')],
});
