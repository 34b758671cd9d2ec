export * from './connection.js';
export * from './names.js';
export * from './queue-runner.js';
export * from './rollout-job.js';
export * from './rollout-worker.js';
export * from './run-registry.js';
