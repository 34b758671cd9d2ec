export * from './environment-contract.js';
export * from './run-outcome.js';
