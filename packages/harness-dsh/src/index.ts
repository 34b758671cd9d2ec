export * from './codecs/index.js';
export * from './dbbench.js';
export * from './harness.js';
export * from './registry.js';
export * from './evolution/index.js';
export * from './families/dbbench.js';
export * from './variants/index.js';
export * from './swe.js';
