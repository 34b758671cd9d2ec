export * from './codecs/index.js';
export * from './dbbench.js';
export * from './harness.js';
export * from './registry.js';
