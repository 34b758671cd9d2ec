export * from './adaptive-router.js';
export * from './chat.js';
export * from './lexical.js';
export * from './profile-store.js';
export * from './profiles.js';
export * from './rankers.js';
export * from './summaries.js';
export * from './voting.js';
