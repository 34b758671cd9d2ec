import { describe, expect, it } from 'vitest';
import { condaSetup, imageName, pytestCommand, resolveRuntime, testArgumentsFor } from './conventions.js';
import { SweInstanceRecord, TestList } from './instance.js';

/** A SWE-Gym record as it comes (lists as lists), trimmed. */
const swegymRecord = {
  instance_id: 'getmoto__moto-5752',
  repo: 'getmoto/moto',
  base_commit: 'b2300f1eae1323e3e8bc45f97e530ce129dff12e',
  patch: 'diff --git a/moto/x.py b/moto/x.py\n',
  test_patch:
    'diff --git a/tests/test_ssm/test_ssm_boto3.py b/tests/test_ssm/test_ssm_boto3.py\n--- a/tests/test_ssm/test_ssm_boto3.py\n+++ b/tests/test_ssm/test_ssm_boto3.py\n',
  problem_statement: 'describe_parameters depends on filter order',
  hints_text: '',
  created_at: '2022-12-10T20:23:01Z',
  version: '4.0',
  FAIL_TO_PASS: ['tests/test_ssm/test_ssm_boto3.py::test_describe_parameters__multiple_tags'],
  PASS_TO_PASS: ['tests/test_ssm/test_ssm_boto3.py::test_get_parameter'],
  environment_setup_commit: '6c3fe2a4b1fb0a3d1c8e9f3e2b1a0e8d4c2b1a0e',
};

describe('instance records', () => {
  it('reads test lists as lists or as JSON strings of lists', () => {
    expect(TestList.parse(['a', 'b'])).toEqual(['a', 'b']);
    expect(TestList.parse('["a", "b"]')).toEqual(['a', 'b']);
    expect(TestList.safeParse('not json').success).toBe(false);
    expect(TestList.safeParse('[1, 2]').success).toBe(false);
  });

  it('reads a SWE-bench record whose lists are JSON strings, ignoring unknown fields', () => {
    const record = SweInstanceRecord.parse({
      ...swegymRecord,
      FAIL_TO_PASS: JSON.stringify(swegymRecord.FAIL_TO_PASS),
      PASS_TO_PASS: '[]',
      some_future_field: 1,
    });
    expect(record.FAIL_TO_PASS).toEqual(swegymRecord.FAIL_TO_PASS);
    expect(record.PASS_TO_PASS).toEqual([]);
  });

  it('refuses a record without a test patch or with a bad commit', () => {
    expect(SweInstanceRecord.safeParse({ ...swegymRecord, test_patch: undefined }).success).toBe(false);
    expect(SweInstanceRecord.safeParse({ ...swegymRecord, base_commit: 'main' }).success).toBe(false);
  });
});

describe('runtime conventions', () => {
  it("follows SWE-Gym's conventions by default", () => {
    const runtime = resolveRuntime(SweInstanceRecord.parse(swegymRecord));
    expect(runtime.image).toBe('xingyaoww/sweb.eval.x86_64.getmoto_s_moto-5752');
    expect(runtime.repoPath).toBe('/testbed');
    expect(runtime.testCommand).toBe(pytestCommand);
    expect(runtime.logParser).toBe('pytest');
    expect(runtime.setup).toBe(condaSetup);
    expect(runtime.testFiles).toEqual(['tests/test_ssm/test_ssm_boto3.py']);
    expect(runtime.testTimeoutMs).toBe(1_800_000);
  });

  it('lets the record override its repository, which overrides the conventions', () => {
    const overrides = {
      'getmoto/moto': { image: 'mirror/{image_id}:latest', testCommand: 'pytest -x -rA', testTimeoutSeconds: 60 },
    };
    const byRepository = resolveRuntime(SweInstanceRecord.parse(swegymRecord), overrides);
    expect(byRepository.image).toBe('mirror/getmoto_s_moto-5752:latest');
    expect(byRepository.testCommand).toBe('pytest -x -rA');
    expect(byRepository.testTimeoutMs).toBe(60_000);
    const byInstance = resolveRuntime(
      SweInstanceRecord.parse({ ...swegymRecord, test_cmd: 'tox -e py', image_name: 'own:1', setup_script: '' }),
      overrides,
    );
    expect(byInstance.testCommand).toBe('tox -e py');
    expect(byInstance.image).toBe('own:1');
    expect(byInstance.setup).toBe('');
    expect(byInstance.testTimeoutMs).toBe(60_000);
  });

  it('names images and test arguments as the harnesses do', () => {
    expect(imageName('x/{image_id}', 'Project__Repo-12')).toBe('x/project_s_repo-12');
    expect(testArgumentsFor(['tests/test_a.py', 'pkg/tests/test_b.py'], 'python-modules')).toEqual([
      'tests.test_a',
      'pkg.tests.test_b',
    ]);
    expect(testArgumentsFor(['test/a.test.js'], 'paths')).toEqual(['test/a.test.js']);
    expect(testArgumentsFor(['test/a.test.js'], 'none')).toEqual([]);
  });
});
