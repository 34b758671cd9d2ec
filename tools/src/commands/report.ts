import { writeReport } from '../report/index.js';

export interface ReportFlags {
  run: string;
  out?: string;
}

/** `harness-s report RUN_DIR`: writes the run's self-contained HTML report and prints its path. */
export async function runReport(flags: ReportFlags): Promise<string> {
  const path = await writeReport(flags.run, flags.out ? { out: flags.out } : {});
  process.stdout.write(`Report: ${path}\n`);
  return path;
}
