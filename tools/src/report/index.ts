import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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
  const folder = await readRunFolder(resolve(runDir));
  const groups = await pickGroups(folder.runs, options.groupsPerEnvironment ?? 3);
  return renderPage(folder, groups, options);
}

/**
 * Writes the HTML report of a reproduction (or of a single training run) and returns its path:
 * tables, training curves, router and variant charts, and rescued groups side by side.
 */
export async function writeReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const path = resolve(options.out ?? join(runDir, 'report.html'));
  await writeFile(path, await renderReport(runDir, options));
  return path;
}
