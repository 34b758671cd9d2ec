export * from './counter-environment.js';
export * from './plain-harness.js';
export * from './scripted-policy.js';
