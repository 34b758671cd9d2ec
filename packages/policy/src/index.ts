export * from './openai-policy.js';
export * from './oracle-policy.js';
export * from './plan-walker.js';
export * from './sim-policy.js';
export * from './sim-trainer.js';
