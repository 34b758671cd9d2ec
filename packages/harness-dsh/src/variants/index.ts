export * from './compliance.js';
export * from './extras.js';
export { dbbenchExtras } from './extras-dbbench.js';
export * from './operators.js';
export * from './patch.js';
export * from './pool.js';
export * from './runtime.js';
export * from './variant-id.js';
