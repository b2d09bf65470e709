/** Chat: the turn engine, runs, events, history, artifacts, enrichment and auto-learning. */
export * from './artifacts.js';
export * from './engine.js';
export * from './enrich.js';
export * from './events.js';
export * from './history.js';
export * from './learn.js';
export * from './ports.js';
export * from './run.js';
export * from './types.js';
export * from './skills-port.js';
