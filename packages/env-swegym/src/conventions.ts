import { z } from 'zod';
import { patchedFiles } from './git.js';
import { LogParserName, type Runtime, type SweInstanceRecord, TestArguments } from './instance.js';

/**
 * Overrides of how instances run, for one repository (or one instance, through the record's own
 * fields `image_name`, `repo_path`, `test_cmd`, `log_parser`, `test_arguments`,
 * `test_timeout_seconds`, `setup_script`). Instance fields win over repository overrides, which
 * win over the SWE-Gym conventions.
 */
export const RuntimeOverrides = z.strictObject({
  /** An image name; `{instance_id}` and `{image_id}` (the id with `__` as `_s_`) are filled in. */
  image: z.string().min(1).optional(),
  repoPath: z.string().min(1).optional(),
  setup: z.string().nullable().optional(),
  testCommand: z.string().min(1).optional(),
  testArguments: TestArguments.optional(),
  logParser: LogParserName.optional(),
  testTimeoutSeconds: z.number().positive().optional(),
});
export type RuntimeOverrides = z.infer<typeof RuntimeOverrides>;

/** Overrides by repository (`owner/name`). */
export const RepositoryOverrides = z.record(z.string(), RuntimeOverrides);
export type RepositoryOverrides = z.infer<typeof RepositoryOverrides>;

/** SWE-Gym's image names: `xingyaoww/sweb.eval.x86_64.<instance id with __ as _s_>`, lower case. */
export const swegymImageTemplate = 'xingyaoww/sweb.eval.x86_64.{image_id}';

/** SWE-bench's pytest invocation for most Python repositories, with `-rA` for the summary the parser reads. */
export const pytestCommand = 'pytest --no-header -rA --tb=no -p no:cacheprovider';

/** Activates the `testbed` conda environment of SWE-bench images, where it exists. */
export const condaSetup =
  'if [ -f /opt/miniconda3/bin/activate ]; then source /opt/miniconda3/bin/activate && conda activate testbed; fi';

/** SWE-bench's default evaluation timeout. */
export const defaultTestTimeoutSeconds = 1800;

/** The SWE-Gym conventions, which every SWE-Gym repository (all Python, all pytest) follows. */
export const swegymDefaults: Required<Omit<RuntimeOverrides, 'setup'>> & { setup: string | null } = {
  image: swegymImageTemplate,
  repoPath: '/testbed',
  setup: condaSetup,
  testCommand: pytestCommand,
  testArguments: 'paths',
  logParser: 'pytest',
  testTimeoutSeconds: defaultTestTimeoutSeconds,
};

/** The image name of an instance from a template. */
export function imageName(template: string, instanceId: string): string {
  const imageId = instanceId.replaceAll('__', '_s_').toLowerCase();
  return template.replaceAll('{instance_id}', instanceId).replaceAll('{image_id}', imageId);
}

/** Test files as arguments of the test command. */
export function testArgumentsFor(files: readonly string[], style: Runtime['testArguments']): string[] {
  if (style === 'none') return [];
  if (style === 'python-modules') return files.map((file) => file.replace(/\.py$/, '').replaceAll('/', '.'));
  return [...files];
}

/** How an instance runs: its own fields, then its repository's overrides, then the SWE-Gym conventions. */
export function resolveRuntime(
  record: SweInstanceRecord,
  repositoryOverrides: RepositoryOverrides = {},
  hostRepo: string | null = null,
): Runtime {
  const forRepository = repositoryOverrides[record.repo] ?? {};
  const pick = <K extends keyof RuntimeOverrides>(key: K, own: RuntimeOverrides[K] | null | undefined) =>
    own ?? forRepository[key] ?? swegymDefaults[key];
  return {
    image: record.image_name ?? imageName(forRepository.image ?? swegymDefaults.image, record.instance_id),
    repoPath: pick('repoPath', record.repo_path) as string,
    setup:
      record.setup_script !== undefined && record.setup_script !== null
        ? record.setup_script
        : forRepository.setup !== undefined
          ? forRepository.setup
          : swegymDefaults.setup,
    testCommand: pick('testCommand', record.test_cmd) as string,
    testArguments: pick('testArguments', record.test_arguments) as Runtime['testArguments'],
    testFiles: patchedFiles(record.test_patch),
    logParser: pick('logParser', record.log_parser) as Runtime['logParser'],
    testTimeoutMs: (pick('testTimeoutSeconds', record.test_timeout_seconds) as number) * 1000,
    hostRepo,
  };
}
