import { existsSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, EvalSummary, InputError, parseWith, readJson, readTrajectories } from '@harness-s/core';
import { renderEvalPage } from './eval-page.js';
import { type PageOptions, renderPage } from './page.js';
import { readRunFolder } from './run-folder.js';
import { pickGroups } from './trajectory-picker.js';

export { type ReportRecord, type RunFolder, readRunFolder } from './run-folder.js';
export { type PickedGroup, pickGroups } from './trajectory-picker.js';

export interface ReportOptions extends PageOptions {
  /** Where to write the report (default `RUN_DIR/report.html`). */
  out?: string;
  /** Groups per environment in the trajectory viewer. */
  groupsPerEnvironment?: number;
}

/** The report of a run folder as one self-contained HTML document. */
export async function renderReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const dir = resolve(runDir);
  if (!existsSync(dir)) throw new ConfigError(`report: no such folder ${dir}`, { code: 'no-results' });
  if (!statSync(dir).isDirectory())
    throw new ConfigError(`report: ${dir} is a file; give a run's folder`, { code: 'no-results' });
  const configPath = join(dir, 'config.json');
  const summaryPath = join(dir, 'summary.json');
  const command = existsSync(configPath)
    ? ((await readJson(configPath)) as { command?: unknown } | null)?.command
    : undefined;
  // An evaluation: as `harness-s eval` records it, or a folder whose summary is an evaluation's
  // (one that `evaluate` wrote through a RunStore of a library user's, with a config of their own).
  const summary = existsSync(summaryPath) ? await readJson(summaryPath) : undefined;
  if (command === 'eval' || (command !== 'train' && EvalSummary.safeParse(summary).success)) {
    if (summary === undefined)
      throw new InputError(
        `report: ${dir} is an evaluation that did not finish (no summary.json); finish it with eval --resume ${dir}`,
        {
          code: 'no-results',
        },
      );
    // A resumed evaluation runs again the attempts it had recorded without a score: the last record of each counts.
    const attempts = new Map((await readTrajectories(dir)).map((trajectory) => [trajectory.id, trajectory]));
    return renderEvalPage(dir, parseWith(EvalSummary, summary, summaryPath), [...attempts.values()], options);
  }
  const folder = await readRunFolder(dir);
  const groups = await pickGroups(folder.runs, options.groupsPerEnvironment ?? 3);
  return renderPage(folder, groups, options);
}

/**
 * Writes the HTML report of a reproduction, a training run or an evaluation run and returns its
 * path: tables, training curves, router and variant charts and rescued groups side by side; for an
 * evaluation, its rates and each task's attempts side by side.
 */
export async function writeReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const path = resolve(options.out ?? join(runDir, 'report.html'));
  const html = await renderReport(runDir, options);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html);
  return path;
}

/**
 * Writes a finished run's report beside it and says where (`Report: PATH`); a report that cannot
 * be made is said, not thrown: the run itself is done and recorded.
 */
export async function reportLine(runDir: string): Promise<string> {
  try {
    return `Report: ${await writeReport(runDir)}\n`;
  } catch (error) {
    return `No report (${(error as Error).message}); harness-s report ${runDir} tries again\n`;
  }
}
