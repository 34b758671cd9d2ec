export * from './environment-contract.js';
