import { describe, expect, it } from 'vitest';
import { classifyTests, evalScript, readTestOutput, resolutionOf, testMarkers } from './grading.js';
import type { SweInstance, SweTask } from './instance.js';
import type { TestStatusMap } from './log-parsers.js';

const instance: SweInstance = {
  instanceId: 'x__y-1',
  repo: 'x/y',
  baseCommit: 'abc1234',
  goldPatch: null,
  testPatch: '',
  problemStatement: '',
  hintsText: '',
  createdAt: null,
  version: null,
  failToPass: ['f1', 'f2'],
  passToPass: ['p1', 'p2'],
  failToFail: [],
  passToFail: [],
};

const statuses = (entries: Record<string, string>): TestStatusMap => new Map(Object.entries(entries)) as TestStatusMap;

describe('classifyTests and resolutionOf', () => {
  it('FULL when every FAIL_TO_PASS and PASS_TO_PASS test passes (XFAIL counts as passing)', () => {
    const status = classifyTests(instance, statuses({ f1: 'PASSED', f2: 'XFAIL', p1: 'PASSED', p2: 'PASSED' }), true);
    expect(status.FAIL_TO_PASS).toEqual({ success: ['f1', 'f2'], failure: [] });
    expect(resolutionOf(status)).toBe('FULL');
  });

  it('PARTIAL when some FAIL_TO_PASS tests pass and every PASS_TO_PASS test passes', () => {
    const status = classifyTests(instance, statuses({ f1: 'PASSED', f2: 'FAILED', p1: 'PASSED', p2: 'PASSED' }), true);
    expect(resolutionOf(status)).toBe('PARTIAL');
  });

  it('NO when a PASS_TO_PASS test breaks, even with every FAIL_TO_PASS test passing', () => {
    const status = classifyTests(instance, statuses({ f1: 'PASSED', f2: 'PASSED', p1: 'PASSED', p2: 'FAILED' }), true);
    expect(status.PASS_TO_PASS.failure).toEqual(['p2']);
    expect(resolutionOf(status)).toBe('NO');
  });

  it('counts tests missing from the log and skipped tests as failures', () => {
    const status = classifyTests(instance, statuses({ f1: 'PASSED', f2: 'SKIPPED', p1: 'PASSED' }), true);
    expect(status.FAIL_TO_PASS.failure).toEqual(['f2']);
    expect(status.PASS_TO_PASS.failure).toEqual(['p2']);
    expect(resolutionOf(status)).toBe('NO');
  });

  it('counts nothing as passing when the log is not trusted', () => {
    const status = classifyTests(instance, statuses({ f1: 'PASSED', f2: 'PASSED', p1: 'PASSED', p2: 'PASSED' }), false);
    expect(status.FAIL_TO_PASS.success).toEqual([]);
    expect(resolutionOf(status)).toBe('NO');
  });
});

describe('test output between markers', () => {
  it('reads the log and the exit code, ignoring markers with another nonce', () => {
    const markers = testMarkers('n1');
    const fake = testMarkers('zz');
    const output = [
      'setup noise',
      markers.start,
      'ok 1 - a',
      fake.end,
      `${fake.exit} 0`,
      'ok 2 - b',
      `${markers.exit} 3`,
      markers.end,
    ].join('\n');
    const { log, exitCode } = readTestOutput(output, 'n1');
    expect(exitCode).toBe(3);
    expect(log).toContain('ok 2 - b');
    expect(log).not.toContain('setup noise');
  });

  it('has no exit code when the tests never finished', () => {
    const markers = testMarkers('n2');
    expect(readTestOutput(`${markers.start}\npartial`, 'n2')).toEqual({ log: 'partial', exitCode: null });
    expect(readTestOutput('nothing at all', 'n2').exitCode).toBeNull();
  });
});

describe('evalScript', () => {
  it('restores the test files, applies the test patch and runs the tests between markers', () => {
    const task = {
      instance,
      runtime: {
        image: 'i',
        repoPath: '/testbed',
        setup: 'source activate',
        testCommand: 'python3 -m unittest -v',
        testArguments: 'python-modules',
        testFiles: ['tests/test_a.py'],
        logParser: 'unittest',
        testTimeoutMs: 1000,
        hostRepo: null,
      },
    } as unknown as SweTask;
    const script = evalScript(task, '/tmp/t.patch', 'n3');
    const lines = script.split('\n');
    expect(lines[0]).toBe('exec 2>&1');
    expect(script).toContain('git checkout -q abc1234 -- tests/test_a.py');
    expect(script).toContain('git apply --verbose /tmp/t.patch');
    const start = lines.findIndex((line) => line.includes('Start Test Output n3'));
    const run = lines.indexOf('python3 -m unittest -v tests.test_a');
    const end = lines.findIndex((line) => line.includes('End Test Output n3'));
    expect(start).toBeGreaterThan(lines.indexOf('source activate'));
    expect(run).toBeGreaterThan(start);
    expect(end).toBeGreaterThan(run);
  });
});
