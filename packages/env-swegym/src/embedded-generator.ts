import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, parseWith } from '@harness-s/core';
import { z } from 'zod';
import { commitInitialTree, copyTree, embeddedDataDir, embeddedImage, pinnedGit } from './embedded-repos.js';
import {
  type Edit,
  EmbeddedOracle,
  LogParserName,
  type SweInstanceRecord,
  TestArguments,
  TestList,
} from './instance.js';
import { reverseEdit } from './oracle-plan.js';

/** `instance.json` of an embedded instance: what is written by hand (patches and commit are derived). */
export const EmbeddedSource = z.strictObject({
  instance_id: z.string().regex(/^embedded__[a-z0-9-]+$/),
  repo: z.string().min(1),
  split: z.enum(['train', 'dev', 'test']),
  language: z.enum(['javascript', 'python']),
  created_at: z.string(),
  version: z.string(),
  problem_statement: z.string().min(1),
  hints_text: z.string().default(''),
  FAIL_TO_PASS: TestList,
  PASS_TO_PASS: TestList,
  test_cmd: z.string().optional(),
  log_parser: LogParserName.optional(),
  test_arguments: TestArguments.optional(),
  oracle: EmbeddedOracle,
});
export type EmbeddedSource = z.infer<typeof EmbeddedSource>;

/** How each language's repositories are tested unless the instance says otherwise. */
const languageDefaults = {
  javascript: { test_cmd: 'node --test --test-reporter=tap', log_parser: 'node-tap', test_arguments: 'paths' },
  python: { test_cmd: 'python3 -m unittest -v', log_parser: 'unittest', test_arguments: 'python-modules' },
} as const;

/** Diff options pinned so the patches do not depend on the machine's git configuration. */
const diffOptions = [
  '--no-color',
  '--no-ext-diff',
  '--full-index',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--diff-algorithm=myers',
  '-U3',
];

/** Applies edits in order to files under `root`; each must find its text exactly once. */
export async function applyEdits(root: string, edits: readonly Edit[], where: string): Promise<void> {
  for (const edit of edits) {
    const path = join(root, edit.file);
    const text = await readFile(path, 'utf8');
    const count = text.split(edit.find).length - 1;
    if (count !== 1) {
      throw new InputError(
        `${where}: the edit of ${edit.file} finds its text ${count} times, not once: ${edit.find.slice(0, 80)}`,
        {
          code: 'bad-edit',
        },
      );
    }
    await writeFile(
      path,
      text.replace(edit.find, () => edit.replace),
    );
  }
}

async function stagedDiff(repo: string, base: string): Promise<string> {
  const git = pinnedGit(repo);
  await git.add(['-A']);
  return git.raw(['diff', '--cached', ...diffOptions, base]);
}

async function restore(repo: string): Promise<void> {
  const git = pinnedGit(repo);
  await git.raw(['reset', '-q', '--hard']);
  await git.raw(['clean', '-qfdx']);
}

/**
 * Builds one embedded instance's record from its directory: the base commit from the stored
 * files, the gold patch from the fix edits, the test patch from `test-patch/`. Every edit sequence
 * the oracle plan can take is tried, so a plan that cannot run is caught here.
 */
export async function generateEmbeddedRecord(dir: string, name: string): Promise<SweInstanceRecord> {
  const where = join(dir, 'instance.json');
  const source = parseWith(EmbeddedSource, JSON.parse(await readFile(where, 'utf8')), where);
  const { oracle } = source;
  const work = await mkdtemp(join(tmpdir(), 'harness-s-generate-'));
  try {
    const repo = join(work, 'repo');
    await copyTree(join(dir, 'repo'), repo);
    const base = await commitInitialTree(repo);

    await applyEdits(repo, oracle.fix, `${where} (fix)`);
    const patch = await stagedDiff(repo, base);
    await restore(repo);
    // The paths the plan can take: wrong fix; debug then fix then its removal; partial fix.
    await applyEdits(repo, oracle.wrongFix, `${where} (wrongFix)`);
    await restore(repo);
    const removal = oracle.debug.kind === 'print' ? [reverseEdit(oracle.debug.edit)] : [];
    await applyEdits(repo, [oracle.debug.edit, ...oracle.fix, ...removal], `${where} (debug, fix, cleanup)`);
    await restore(repo);

    await copyTree(join(dir, 'test-patch'), repo);
    const testPatch = await stagedDiff(repo, base);
    if (testPatch.trim() === '')
      throw new InputError(`${where}: test-patch/ changes nothing`, { code: 'bad-embedded' });
    const defaults = languageDefaults[source.language];
    return {
      instance_id: source.instance_id,
      repo: source.repo,
      base_commit: base,
      patch,
      test_patch: testPatch,
      problem_statement: source.problem_statement,
      hints_text: source.hints_text,
      created_at: source.created_at,
      version: source.version,
      FAIL_TO_PASS: source.FAIL_TO_PASS,
      PASS_TO_PASS: source.PASS_TO_PASS,
      environment_setup_commit: base,
      image_name: embeddedImage,
      repo_path: '/testbed',
      test_cmd: source.test_cmd ?? defaults.test_cmd,
      log_parser: source.log_parser ?? defaults.log_parser,
      test_arguments: source.test_arguments ?? defaults.test_arguments,
      test_timeout_seconds: 120,
      setup_script: '',
      harness_s: { split: source.split, language: source.language, repo_dir: `${name}/repo`, oracle },
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Every embedded instance's record, in instance id order. */
export async function generateEmbeddedRecords(dataDir = embeddedDataDir): Promise<SweInstanceRecord[]> {
  const names: string[] = [];
  for (const entry of await readdir(dataDir)) {
    const isInstance = await stat(join(dataDir, entry, 'instance.json')).then(
      () => true,
      () => false,
    );
    if (isInstance) names.push(entry);
  }
  const records = await Promise.all(names.sort().map((name) => generateEmbeddedRecord(join(dataDir, name), name)));
  return records.sort((a, b) => a.instance_id.localeCompare(b.instance_id));
}

/** The JSONL text of the records, one per line. */
export const recordsToJsonl = (records: readonly SweInstanceRecord[]): string =>
  records.map((record) => JSON.stringify(record)).join('\n') + (records.length ? '\n' : '');
