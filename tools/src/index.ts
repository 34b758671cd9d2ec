export { type EvalFlags, formatSummary, runEval } from './commands/eval.js';
export { type EvolveFlags, formatPoolSummary, runEvolve } from './commands/evolve.js';
export { type ReplayFlags, readActions, runReplay } from './commands/replay.js';
export {
  type CleanupFlags,
  createEnvironment,
  type EnvironmentEntry,
  type EnvironmentOptions,
  environmentNames,
  registerEnvironment,
} from './environments.js';
export { renderTable } from './format.js';
export { definePlugin, type HarnessSPlugin, loadPlugins, registerPlugin } from './plugins.js';
export { createPolicy } from './policies.js';
export { createProgram } from './program.js';
export { type ReportOptions, renderReport, writeReport } from './report/index.js';
export { type EnvironmentResources, type ReproduceJob, runJob } from './reproduce/jobs.js';
export type { ResultRecord } from './reproduce/results.js';
