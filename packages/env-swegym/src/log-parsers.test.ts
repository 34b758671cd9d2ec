import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJest, parseNodeSpec, parseNodeTap, parsePytest, parseUnittest, parseVitest } from './log-parsers.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('node:test TAP reporter (recorded run)', () => {
  const statuses = parseNodeTap(fixture('node-tap.log'));

  it('names tests by their suites and reads passes and failures', () => {
    expect(statuses.get('parseLine > splits plain fields')).toBe('PASSED');
    expect(statuses.get('parseLine > reads a doubled quote inside a quoted field as one quote')).toBe('FAILED');
    expect(statuses.get('parseHeader > reads a doubled quote inside a quoted column name as one quote')).toBe('FAILED');
    expect(statuses.get('readFile > reads the people fixture')).toBe('PASSED');
    // The suites themselves are reported too.
    expect(statuses.get('parseLine')).toBe('FAILED');
  });

  it('reads skipped and todo tests as skipped, and nested suites', () => {
    const log = [
      'TAP version 13',
      '# Subtest: outer',
      '    # Subtest: inner',
      '        # Subtest: deep',
      '        ok 1 - deep',
      '    ok 1 - inner',
      '    # Subtest: later',
      '    ok 2 - later # SKIP not now',
      '    # Subtest: someday',
      '    ok 3 - someday # TODO',
      'ok 1 - outer',
    ].join('\n');
    const parsed = parseNodeTap(log);
    expect(parsed.get('outer > inner > deep')).toBe('PASSED');
    expect(parsed.get('outer > later')).toBe('SKIPPED');
    expect(parsed.get('outer > someday')).toBe('SKIPPED');
  });
});

describe('node:test spec reporter (recorded run)', () => {
  const statuses = parseNodeSpec(fixture('node-spec.log'));

  it('names tests by their suites, passes and failures', () => {
    expect(statuses.get('pageCount > counts full pages')).toBe('PASSED');
    expect(statuses.get('pageCount > counts a partly filled last page')).toBe('FAILED');
    expect(statuses.get('hasNextPage > is true before a partly filled last page')).toBe('FAILED');
    expect(statuses.get('cli > prints the page count')).toBe('PASSED');
  });

  it('does not read the repeated failure list after the summary as new tests', () => {
    const names = [...statuses.keys()];
    expect(names.filter((name) => name.endsWith('counts a partly filled last page'))).toEqual([
      'pageCount > counts a partly filled last page',
    ]);
  });

  it('reads nested suites and skips', () => {
    const log = [
      '▶ a',
      '  ▶ b',
      '    ✔ c (1ms)',
      '  ✔ b (2ms)',
      '  ﹣ d (0.1ms) # SKIP',
      '✔ a (3ms)',
      '✖ top (1ms)',
    ].join('\n');
    const parsed = parseNodeSpec(log);
    expect(parsed.get('a > b > c')).toBe('PASSED');
    expect(parsed.get('a > d')).toBe('SKIPPED');
    expect(parsed.get('top')).toBe('FAILED');
  });
});

describe('unittest -v', () => {
  it('reads a recorded Python 3.11 run', () => {
    const statuses = parseUnittest(fixture('unittest.log'));
    expect(statuses.get('tests.test_slug.SlugifyTest.test_basic')).toBe('PASSED');
    expect(statuses.get('tests.test_slug.SlugifyTest.test_accents_are_folded')).toBe('FAILED');
    expect(statuses.get('tests.test_slug.FilenameTest.test_accents_are_folded')).toBe('FAILED');
    expect(statuses.get('tests.test_slug.CliTest.test_prints_slugs')).toBe('PASSED');
  });

  it('reads older Python names, docstrings, output between the name and the outcome, and other outcomes', () => {
    const log = [
      'test_a (pkg.test_m.T) ... ok',
      'test_b (pkg.test_m.T)',
      'The docstring line ... FAIL',
      'test_c (pkg.test_m.T.test_c) ... some printed text',
      'ok',
      "test_d (pkg.test_m.T.test_d) ... skipped 'not on this platform'",
      'test_e (pkg.test_m.T.test_e) ... expected failure',
      'test_f (pkg.test_m.T.test_f) ... unexpected success',
      'test_g (pkg.test_m.T.test_g) ... ERROR',
    ].join('\n');
    const statuses = parseUnittest(log);
    expect(Object.fromEntries(statuses)).toEqual({
      'pkg.test_m.T.test_a': 'PASSED',
      'pkg.test_m.T.test_b': 'FAILED',
      'pkg.test_m.T.test_c': 'PASSED',
      'pkg.test_m.T.test_d': 'SKIPPED',
      'pkg.test_m.T.test_e': 'XFAIL',
      'pkg.test_m.T.test_f': 'FAILED',
      'pkg.test_m.T.test_g': 'ERROR',
    });
  });

  it('keeps a failure when a line claiming a pass is printed for the same test', () => {
    const log = ['test_x (m.T.test_x) ... FAIL', 'test_x (m.T.test_x) ... ok', 'FAIL: test_x (m.T.test_x)'].join('\n');
    expect(parseUnittest(log).get('m.T.test_x')).toBe('FAILED');
  });
});

describe('pytest -rA', () => {
  it('reads the short summary as SWE-bench does', () => {
    const log = [
      '============ short test summary info ============',
      'PASSED tests/test_a.py::test_one',
      'PASSED tests/test_a.py::TestK::test_two[param-1]',
      'FAILED tests/test_a.py::test_three - AssertionError: assert 1 == 2',
      'SKIPPED [1] tests/test_a.py:10: no network',
      'XFAIL tests/test_a.py::test_four - known',
      'ERROR tests/test_b.py::test_five - fixture missing',
    ].join('\n');
    const statuses = parsePytest(log);
    expect(statuses.get('tests/test_a.py::test_one')).toBe('PASSED');
    expect(statuses.get('tests/test_a.py::TestK::test_two[param-1]')).toBe('PASSED');
    expect(statuses.get('tests/test_a.py::test_three')).toBe('FAILED');
    expect(statuses.get('tests/test_a.py::test_four')).toBe('XFAIL');
    expect(statuses.get('tests/test_b.py::test_five')).toBe('ERROR');
  });
});

describe('jest and vitest', () => {
  it('reads jest --verbose', () => {
    const log = [
      'PASS src/a.test.js',
      '  sum',
      '    ✓ adds (3 ms)',
      '    ✕ subtracts (1 ms)',
      '    ○ skipped later',
    ].join('\n');
    const statuses = parseJest(log);
    expect(statuses.get('adds')).toBe('PASSED');
    expect(statuses.get('subtracts')).toBe('FAILED');
    expect(statuses.get('later')).toBe('SKIPPED');
  });

  it('reads vitest --reporter=verbose', () => {
    const log = [
      ' ✓ src/a.test.ts > sum > adds 2ms',
      ' × src/a.test.ts > sum > subtracts 5ms',
      ' ↓ src/a.test.ts > sum > later [skipped]',
    ].join('\n');
    const statuses = parseVitest(log);
    expect(statuses.get('src/a.test.ts > sum > adds')).toBe('PASSED');
    expect(statuses.get('src/a.test.ts > sum > subtracts')).toBe('FAILED');
    expect(statuses.get('src/a.test.ts > sum > later')).toBe('SKIPPED');
  });
});
