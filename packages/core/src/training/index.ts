export * from './advantages.js';
export * from './router.js';
export * from './step-metrics.js';
export * from './train-config.js';
export * from './train-loop.js';
export * from './train-store.js';
export * from './train-summary.js';
export * from './trainer.js';
