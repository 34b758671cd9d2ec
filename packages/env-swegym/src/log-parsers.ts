import type { LogParserName } from './instance.js';

/** SWE-bench's test statuses. */
export type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'XFAIL';

/** Test name -> status, as one test log reports it. */
export type TestStatusMap = Map<string, TestStatus>;

const failing = new Set<TestStatus>(['FAILED', 'ERROR']);

/**
 * Records a status. A test reported both passing and failing counts as failing: printed "PASSED"
 * lines cannot outvote the runner's own failure report.
 */
function record(map: TestStatusMap, name: string, status: TestStatus): void {
  const before = map.get(name);
  if (before && failing.has(before) && !failing.has(status)) return;
  map.set(name, status);
}

/** pytest `-rA`: the short summary lines `PASSED path::test`, `FAILED path::test - reason`, as SWE-bench reads them. */
export function parsePytest(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  const known: TestStatus[] = ['PASSED', 'FAILED', 'SKIPPED', 'ERROR', 'XFAIL'];
  for (const raw of log.split('\n')) {
    const status = known.find((value) => raw.startsWith(`${value} `));
    if (!status) continue;
    const line = status === 'FAILED' || status === 'ERROR' ? raw.replace(' - ', ' ') : raw;
    const name = line.split(/\s+/)[1];
    if (name) record(statuses, name, status);
  }
  return statuses;
}

/**
 * A unittest name as `module.Class.test`: Python 3.11+ prints `test (module.Class.test)`, older
 * versions `test (module.Class)`.
 */
function unittestName(method: string, dotted: string): string {
  return dotted.endsWith(`.${method}`) ? dotted : `${dotted}.${method}`;
}

const unittestOutcomes: Array<[RegExp, TestStatus]> = [
  [/^ok$/, 'PASSED'],
  [/^FAIL$/, 'FAILED'],
  [/^ERROR$/, 'ERROR'],
  [/^skipped\b/, 'SKIPPED'],
  [/^expected failure$/, 'XFAIL'],
  [/^unexpected success$/, 'FAILED'],
];

const outcomeOf = (text: string): TestStatus | undefined =>
  unittestOutcomes.find(([pattern]) => pattern.test(text.trim()))?.[1];

/**
 * Python unittest with `-v`: `test_x (pkg.mod.Class.test_x) ... ok`. A test's own output or a
 * docstring line can push the outcome to a later line; the `FAIL:`/`ERROR:` headers of the failure
 * report mark failures too (they survive any interleaved printing).
 */
export function parseUnittest(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  let pending: string | null = null;
  for (const line of log.split('\n')) {
    const header = /^(FAIL|ERROR): (\w+) \(([\w.]+)\)/.exec(line);
    if (header?.[2] && header[3]) {
      record(statuses, unittestName(header[2], header[3]), header[1] === 'FAIL' ? 'FAILED' : 'ERROR');
      continue;
    }
    const start = /^(\w+) \(([\w.]+)\)/.exec(line);
    if (start?.[1] && start[2]) {
      pending = unittestName(start[1], start[2]);
    }
    if (pending === null) continue;
    const dots = line.lastIndexOf(' ... ');
    const outcomeText = dots >= 0 ? line.slice(dots + 5) : start ? '' : line;
    const status = outcomeOf(outcomeText);
    if (status) {
      record(statuses, pending, status);
      pending = null;
    }
  }
  return statuses;
}

/** node:test with `--test-reporter=tap`: nested `# Subtest:` blocks; names joined with ` > `. */
export function parseNodeTap(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  // Indentation (4 spaces a level) -> the subtest name opened at that level.
  const open = new Map<number, string>();
  for (const line of log.split('\n')) {
    const subtest = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const level = (subtest[1] ?? '').length / 4;
      open.set(level, subtest[2] ?? '');
      for (const key of [...open.keys()]) if (key > level) open.delete(key);
      continue;
    }
    const result = /^(\s*)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    if (!result) continue;
    const level = (result[1] ?? '').length / 4;
    const parents = [...open.entries()]
      .filter(([key]) => key < level)
      .sort(([a], [b]) => a - b)
      .map(([, name]) => name);
    const name = [...parents, result[3] ?? ''].join(' > ');
    const status: TestStatus = result[4] ? 'SKIPPED' : result[2] === 'ok' ? 'PASSED' : 'FAILED';
    record(statuses, name, status);
  }
  return statuses;
}

/** node:test with `--test-reporter=spec`: `▶ suite`, `✔ test (1ms)`, `✖ test`, `﹣ test # SKIP`. */
export function parseNodeSpec(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  const suites: Array<{ indent: number; name: string }> = [];
  for (const line of log.split('\n')) {
    // The reporter repeats failing tests after the summary; they were recorded already.
    if (/^✖ failing tests:/.test(line)) break;
    const suite = /^(\s*)▶ (.*?)(?: \([\d.]+m?s\))?$/.exec(line);
    if (suite) {
      const indent = (suite[1] ?? '').length;
      while (suites.length && (suites.at(-1)?.indent ?? -1) >= indent) suites.pop();
      suites.push({ indent, name: suite[2] ?? '' });
      continue;
    }
    const result = /^(\s*)(✔|✖|﹣) (.*?)(?: \([\d.]+m?s\))?(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    if (!result) continue;
    const indent = (result[1] ?? '').length;
    while (suites.length && (suites.at(-1)?.indent ?? -1) > indent) suites.pop();
    // A result at the same indentation as an open suite of the same name closes that suite.
    const closing = suites.at(-1);
    if (closing && closing.indent === indent) suites.pop();
    const name = [...suites.map((item) => item.name), result[3] ?? ''].join(' > ');
    const status: TestStatus = result[4] || result[2] === '﹣' ? 'SKIPPED' : result[2] === '✔' ? 'PASSED' : 'FAILED';
    record(statuses, name, status);
  }
  return statuses;
}

/** jest `--verbose`: `✓ name (3 ms)`, `✕ name`, `○ skipped name`, as SWE-bench's jest parser. */
export function parseJest(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  for (const line of log.split('\n')) {
    const match = /^\s*(✓|✕|○|✎) (?:skipped |todo )?(.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?$/.exec(line);
    if (!match?.[2]) continue;
    const status: TestStatus = match[1] === '✓' ? 'PASSED' : match[1] === '✕' ? 'FAILED' : 'SKIPPED';
    record(statuses, match[2], status);
  }
  return statuses;
}

/** vitest (`--reporter=verbose`): `✓ file > suite > name 1ms`, `× name`, `↓ name [skipped]`. */
export function parseVitest(log: string): TestStatusMap {
  const statuses: TestStatusMap = new Map();
  for (const line of log.split('\n')) {
    const match = /^\s*(✓|√|×|✗|↓) (.+?)(?: \d+(?:\.\d+)? ?m?s| \[skipped\])?$/.exec(line);
    if (!match?.[2]) continue;
    const status: TestStatus =
      match[1] === '✓' || match[1] === '√' ? 'PASSED' : match[1] === '↓' ? 'SKIPPED' : 'FAILED';
    record(statuses, match[2], status);
  }
  return statuses;
}

const parsers: Record<LogParserName, (log: string) => TestStatusMap> = {
  pytest: parsePytest,
  unittest: parseUnittest,
  'node-tap': parseNodeTap,
  'node-spec': parseNodeSpec,
  jest: parseJest,
  vitest: parseVitest,
};

/** Parses a test log with the named parser. */
export const parseTestLog = (parser: LogParserName, log: string): TestStatusMap => parsers[parser](log);
