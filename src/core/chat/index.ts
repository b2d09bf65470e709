/** Chat: the turn engine, runs, events, history, artifacts, enrichment and auto-learning. */
export * from './appender.js';
export * from './drain.js';
export * from './artifacts.js';
export * from './encoded.js';
export * from './fs-store/index.js';
export * from './engine.js';
export * from './enrich.js';
export * from './events.js';
export * from './learn.js';
export * from './observer.js';
export * from './ports.js';
export * from './recent-runs.js';
export * from './run.js';
export * from './store.js';
export * from './turn.js';
export * from './types.js';
export * from './skills-port.js';
