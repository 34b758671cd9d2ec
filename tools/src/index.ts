export { type EvalFlags, formatSummary, runEval } from './commands/eval.js';
export { type EvolveFlags, formatPoolSummary, runEvolve } from './commands/evolve.js';
export { type ReplayFlags, readActions, runReplay } from './commands/replay.js';
export { createEnvironment, environmentNames } from './environments.js';
export { renderTable } from './format.js';
export { createPolicy } from './policies.js';
export { createProgram } from './program.js';
export { type ReportOptions, renderReport, writeReport } from './report/index.js';
