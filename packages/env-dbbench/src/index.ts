export * from './answer-scoring.js';
export * from './backend.js';
export * from './environment.js';
export * from './episode.js';
export * from './oracle-plan.js';
export * from './pglite-backend.js';
export * from './records.js';
export * from './table-ddl.js';
